/**
 * Agent runs as the observer shows them: `agentEvents()` gives runAgent an events object (its `events`
 * option) that keeps the run's conversation as it grows, so the page renders it turn by turn.
 */
import type { AgentEvents } from "../agents/events.js";
import type { Block, TraceMessage } from "../agents/trace.js";

export const KEPT_RUNS = 10;

export interface RunView {
  id: number;
  label: string;
  startedAt: number;
  state: "running" | "done" | "failed";
  turns: number;
  error: string | undefined;
  messages: TraceMessage[];
}

export class AgentRuns {
  private readonly runs: RunView[] = [];
  private nextId = 1;

  constructor(private readonly changed: () => void) {}

  /** The events for one run (a fresh object per run). */
  events(label: string | undefined): AgentEvents {
    const run: RunView = { id: this.nextId++, label: label ?? "", startedAt: Date.now(), state: "running", turns: 0, error: undefined, messages: [] };
    if (run.label === "") run.label = `run ${run.id}`;
    this.runs.push(run);
    if (this.runs.length > KEPT_RUNS) this.runs.shift();
    return {
      modelCallStart: (start) => {
        run.turns = start.turn;
        run.messages = [...start.messages];
        this.changed();
      },
      modelCallEnd: (end) => {
        if (end.response !== undefined) {
          run.messages.push(end.response.message);
          if (!end.response.message.content.some((block: Block) => block.type === "tool_use")) run.state = "done";
        } else {
          run.state = "failed";
          run.error = end.error?.message;
        }
        this.changed();
      },
      toolCallEnd: (end) => {
        // The next model call's messages replace this with the loop's own tool message.
        const last = run.messages[run.messages.length - 1];
        if (last?.role === "tool") last.content = [...last.content, end.result];
        else run.messages.push({ role: "tool", content: [end.result] });
        this.changed();
      },
    };
  }

  list(): readonly RunView[] {
    return this.runs;
  }
}
