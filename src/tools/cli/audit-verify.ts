// Entry point of `npm run audit:verify -- <source>`: verifies a whole audit chain and exits 0 only when it is healthy.
import { runAuditVerify } from './audit-verify-command.js';

process.exitCode = await runAuditVerify(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
