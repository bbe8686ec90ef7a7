/** A bounded buffer that keeps only the last N bytes written to it (a child's stderr tail). */
export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = false;

  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.limit <= 0) return;
    if (chunk.length >= this.limit) {
      this.chunks = [chunk.subarray(chunk.length - this.limit)];
      this.dropped = this.dropped || chunk.length > this.limit || this.size > 0;
      this.size = this.limit;
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) this.trimFront();
  }

  /** The kept bytes as UTF-8; `…` marks that earlier output was dropped. */
  text(): string {
    const text = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped ? `…${text}` : text;
  }

  private trimFront(): void {
    const first = this.chunks[0];
    if (first === undefined) return;
    const excess = this.size - this.limit;
    this.dropped = true;
    if (first.length <= excess) {
      this.chunks.shift();
      this.size -= first.length;
    } else {
      this.chunks[0] = first.subarray(excess);
      this.size -= excess;
    }
  }
}
