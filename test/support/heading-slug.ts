// GitHub's heading anchors, so a test can tell whether a link's `#fragment` names a heading.

/** A heading's text as GitHub renders it: a link keeps its words, code and emphasis lose their marks. */
function renderedText(heading: string): string {
  return heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '').trim();
}

/**
 * Anchors for the headings of one document, in order, as GitHub (github-slugger) makes them: the
 * rendered text lower-cased, every character but letters, digits, `_`, `-` and spaces dropped,
 * each space a hyphen; a repeat gets `-1`, `-2`, ... and skips an anchor an earlier heading took.
 */
export function headingSlugger(): (heading: string) => string {
  const taken = new Map<string, number>();
  return (heading) => {
    const base = renderedText(heading).toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    let slug = base;
    while (taken.has(slug)) {
      const count = taken.get(base)! + 1;
      taken.set(base, count);
      slug = `${base}-${count}`;
    }
    taken.set(slug, 0);
    return slug;
  };
}
