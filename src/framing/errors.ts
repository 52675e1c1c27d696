/** A frame that could not be decoded. The decoder has already skipped it; the next frame decodes. */
export class FramingError extends Error {
  /** The start of the offending input (bounded), for logs. */
  readonly sample: string;
  constructor(message: string, sample = "") {
    super(message);
    this.name = "FramingError";
    this.sample = sample;
  }
}

const SAMPLE_CHARS = 200;
export function sampleOf(text: string): string {
  return text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS)}…` : text;
}

/** The start of a decoded value as JSON, for an error sample; never throws (a value nested too deep to serialise says so). */
export function sampleJson(value: unknown): string {
  try {
    return sampleOf(JSON.stringify(value) ?? String(value));
  } catch {
    return "(a value nested too deeply to show)";
  }
}
