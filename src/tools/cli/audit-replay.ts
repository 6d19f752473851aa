// Entry point of `npm run audit:replay -- <source>`: re-derives recorded verdicts from their facts; exits 0 only when all hold.
import { runAuditReplay } from './audit-replay-command.js';

process.exitCode = await runAuditReplay(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
