// Pure: the best `capacity` scored lines of a search, kept as they come (a heap whose root is the
// line that ranks last), in typed arrays: a search that walks 400,000 candidate lines allocates
// nothing per line, and a line is admitted only when it beats the shortlist's last one. The
// ranking order is the search's: higher score first, ties by source, then line; the lines kept
// are the same whatever order they come in.

export class TopLines {
  readonly score: Float64Array;
  readonly source: Int32Array;
  readonly line: Int32Array;
  readonly matched: Int32Array;
  /** What the line is to the caller (a candidate's index, a pool's number). */
  readonly ref: Int32Array;
  /** Each slot's term counts (`width` of them): a pool line's, copied out of its walk. */
  readonly tf: Int32Array;
  /** Slots in heap order: heap[0] ranks last. */
  private readonly heap: Int32Array;
  size = 0;

  constructor(
    readonly capacity: number,
    readonly width: number,
  ) {
    this.score = new Float64Array(capacity);
    this.source = new Int32Array(capacity);
    this.line = new Int32Array(capacity);
    this.matched = new Int32Array(capacity);
    this.ref = new Int32Array(capacity);
    this.tf = new Int32Array(capacity * width);
    this.heap = new Int32Array(capacity);
  }

  /** Whether a line of this score, source and line would be kept. */
  admits(score: number, source: number, line: number): boolean {
    if (this.size < this.capacity) return true;
    const last = this.heap[0];
    return ranksBefore(score, source, line, this.score[last], this.source[last], this.line[last]);
  }

  /** The score of the line that ranks last once full (below it nothing is kept), else -Infinity. */
  lastScore(): number {
    return this.size < this.capacity ? -Infinity : this.score[this.heap[0]];
  }

  /** Keeps a line (call when admits() said so); its counts, when given, are `tf[at..at + width)`. Returns its slot. */
  add(score: number, source: number, line: number, matched: number, ref: number, tf?: ArrayLike<number>, at = 0): number {
    let slot: number;
    if (this.size < this.capacity) {
      slot = this.size;
      this.heap[this.size++] = slot;
      this.set(slot, score, source, line, matched, ref, tf, at);
      this.up(this.size - 1);
    } else {
      slot = this.heap[0];
      this.set(slot, score, source, line, matched, ref, tf, at);
      this.down(0);
    }
    return slot;
  }

  /** The kept slots, best first. */
  sorted(): number[] {
    const slots = Array.from(this.heap.subarray(0, this.size));
    return slots.sort((a, b) => (this.before(a, b) ? -1 : this.before(b, a) ? 1 : 0));
  }

  private set(slot: number, score: number, source: number, line: number, matched: number, ref: number, tf: ArrayLike<number> | undefined, at: number): void {
    this.score[slot] = score;
    this.source[slot] = source;
    this.line[slot] = line;
    this.matched[slot] = matched;
    this.ref[slot] = ref;
    if (tf) for (let t = 0, to = slot * this.width; t < this.width; t++) this.tf[to + t] = tf[at + t];
  }

  private before(a: number, b: number): boolean {
    return ranksBefore(this.score[a], this.source[a], this.line[a], this.score[b], this.source[b], this.line[b]);
  }

  /** Sifts heap[i] up while it ranks after its parent. */
  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[parent], heap[i])) return;
      const slot = heap[i];
      heap[i] = heap[parent];
      heap[parent] = slot;
      i = parent;
    }
  }

  /** Sifts heap[i] down while a child ranks after it. */
  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) return;
      const right = left + 1;
      const child = right < this.size && this.before(heap[left], heap[right]) ? right : left;
      if (!this.before(heap[i], heap[child])) return;
      const slot = heap[i];
      heap[i] = heap[child];
      heap[child] = slot;
      i = child;
    }
  }
}

/** The search's order: higher score first, then lower source, then lower line. */
export function ranksBefore(score: number, source: number, line: number, otherScore: number, otherSource: number, otherLine: number): boolean {
  return score > otherScore || (score === otherScore && (source < otherSource || (source === otherSource && line < otherLine)));
}
