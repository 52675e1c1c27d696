/** Keeps the last N characters of a stream's text, starting at a line when it had to cut, for error messages. */
export class StderrTail {
  private text = "";
  private truncated = false;
  constructor(private readonly maxChars: number) {}

  push(chunk: string): void {
    this.text += chunk;
    // Trim in batches, not on every chunk: keeps push cheap for chatty servers.
    if (this.text.length > this.maxChars * 2) {
      this.text = this.text.slice(-this.maxChars);
      this.truncated = true;
    }
  }

  toString(): string {
    let tail = this.text;
    let cut = this.truncated;
    if (tail.length > this.maxChars) {
      tail = tail.slice(-this.maxChars);
      cut = true;
    }
    if (cut) {
      // Drop the partial first line, unless it is the only line there is.
      const newline = tail.indexOf("\n");
      if (newline !== -1 && newline < tail.trimEnd().length) tail = tail.slice(newline + 1);
    }
    return tail.trimEnd();
  }
}
