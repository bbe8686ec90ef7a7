/**
 * Old and new text as diff lines: kept (` `), removed (`-`) and added (`+`), in order, from the
 * longest common subsequence of their lines. Past a size where that table would be large the
 * lines are shown as all removed then all added: still correct, only less compact.
 */

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Cells of the LCS table allowed (old lines × new lines). */
const MAX_CELLS = 250_000;

const linesOf = (text: string | undefined): string[] =>
  text === undefined || text === '' ? [] : text.replace(/\n$/, '').split('\n');

export function lineDiff(oldText: string | undefined, newText: string): DiffLine[] {
  const a = linesOf(oldText);
  const b = linesOf(newText);
  // Common head and tail first: most edits touch a few lines in the middle.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const keep = (lines: string[]): DiffLine[] => lines.map((text) => ({ op: ' ', text }));
  const middle = middleDiff(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [...keep(a.slice(0, head)), ...middle, ...keep(a.slice(a.length - tail))];
}

function middleDiff(a: string[], b: string[]): DiffLine[] {
  const removed = (text: string): DiffLine => ({ op: '-', text });
  const added = (text: string): DiffLine => ({ op: '+', text });
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_CELLS)
    return [...a.map(removed), ...b.map(added)];
  // lcs[i][j]: the LCS length of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * width + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i] as string });
      i++;
      j++;
    } else if ((lcs[(i + 1) * width + j] as number) >= (lcs[i * width + j + 1] as number))
      out.push(removed(a[i++] as string));
    else out.push(added(b[j++] as string));
  }
  while (i < a.length) out.push(removed(a[i++] as string));
  while (j < b.length) out.push(added(b[j++] as string));
  return out;
}
