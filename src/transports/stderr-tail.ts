/** Keeps the last N bytes of a stream's text, cut at a line start when possible, for error messages. */
export class StderrTail {
  private text = "";
  constructor(private readonly maxChars: number) {}

  push(chunk: string): void {
    this.text += chunk;
    if (this.text.length > this.maxChars * 2) this.text = this.text.slice(-this.maxChars);
  }

  toString(): string {
    let tail = this.text.length > this.maxChars ? this.text.slice(-this.maxChars) : this.text;
    const newline = tail.indexOf("\n");
    if (this.text.length > this.maxChars && newline !== -1 && newline < tail.length - 1) tail = tail.slice(newline + 1);
    return tail.trimEnd();
  }
}
