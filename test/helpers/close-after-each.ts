/**
 * Closes what a test opened once it ends, the last opened first (clients before the servers they talk
 * to), so no client, server or process outlives its test.
 */
import { afterEach } from "vitest";

type Closable = { close(): Promise<unknown> };

export function closeAfterEach(): <T extends Closable>(thing: T) => T {
  let opened: Closable[] = [];
  afterEach(async () => {
    const things = opened.reverse();
    opened = [];
    for (const thing of things) await thing.close();
  });
  return (thing) => {
    opened.push(thing);
    return thing;
  };
}
