/**
 * Write scopes ([TSK4], [TSK5]): path globs relative to the repository. `**` matches any number
 * of path segments, `*` any characters within one segment, `?` one character; the rest is
 * literal. Shared by the server (overlap of two tasks' scopes) and the runner (the scope check).
 */

const cache = new Map<string, RegExp>();

function regexOf(glob: string): RegExp {
  let re = cache.get(glob);
  if (re) return re;
  let src = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      i++;
      if (glob[i + 1] === "/") {
        i++;
        src += "(?:.*/)?"; // `a/**/b` also matches `a/b`
      } else src += ".*";
    } else if (c === "*") src += "[^/]*";
    else if (c === "?") src += "[^/]";
    else src += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  re = new RegExp(`^${src}$`);
  if (cache.size > 1000) cache.clear();
  cache.set(glob, re);
  return re;
}

/** Whether a path is inside a scope (matched by one of its globs). */
export function inScope(path: string, scope: readonly string[]): boolean {
  return scope.some((g) => regexOf(g).test(path));
}

/** The part of a glob before its first wildcard. */
const literalPrefix = (g: string) => g.slice(0, g.search(/[*?]|$/));

/**
 * Whether two globs may name a common path: exactly when both are literal paths; otherwise
 * when one's literal part is a prefix of the other's and, for a literal path, the glob matches
 * it. Conservative: `src/*.ts` and `src/*.md` are said to overlap.
 */
function globsOverlap(a: string, b: string): boolean {
  const pa = literalPrefix(a);
  const pb = literalPrefix(b);
  if (pa === a && pb === b) return a === b;
  if (pa === a) return regexOf(b).test(a);
  if (pb === b) return regexOf(a).test(b);
  return pa.startsWith(pb) || pb.startsWith(pa);
}

/** Whether two write scopes overlap: some glob of one may name a path of the other. */
export function scopesOverlap(a: readonly string[], b: readonly string[]): boolean {
  return a.some((x) => b.some((y) => globsOverlap(x, y)));
}
