/**
 * What a process runs in the background and what it holds open, each in one list, so that
 * starting and stopping cannot drift apart: background tasks (projectors, dispatchers,
 * sweepers) start in the order listed and stop in reverse, and resources (connections,
 * engines, files) close in the reverse of the order they were opened, after every task has
 * stopped. A step that fails or hangs does not keep the others from closing: each is waited
 * for at most its share of the bound, and what failed is reported, not thrown.
 */
import { endsWithin } from '../scheduling/ends-within.ts';

export interface BackgroundTask {
  readonly name: string;
  start(): void;
  stop(): Promise<void>;
}

export interface Lifecycle {
  /** Adds a task; `when` false leaves it out (a projector whose store is down, a dispatcher without an engine). */
  task(task: BackgroundTask, when?: boolean): void;
  /** Adds what to close once the tasks are stopped; closed last-opened first. */
  resource(name: string, close: () => Promise<void> | void): void;
  start(): void;
  /** Stops the tasks, then closes the resources, within `boundMs` in all (Infinity: no bound); false when something did not end in it. */
  stop(boundMs: number): Promise<boolean>;
  /** The steps of a stop begun and not yet ended (a step given up on at the bound stays here): what a stop past its bound names. */
  unfinished(): string[];
}

export function lifecycle(options: { readonly onFailure: (name: string, error: unknown) => void }): Lifecycle {
  const tasks: BackgroundTask[] = [];
  const resources: { name: string; close: () => Promise<void> | void }[] = [];
  let started = false;
  const running = new Set<string>();
  const step = async (name: string, work: () => Promise<void> | void, deadline: number): Promise<boolean> => {
    try {
      running.add(name);
      const done = Promise.resolve()
        .then(work)
        .finally(() => running.delete(name));
      // No bound: wait as long as it takes (a timer cannot hold Infinity).
      if (!Number.isFinite(deadline)) return await done.then(() => true);
      return await endsWithin(done, Math.max(0, deadline - Date.now()));
    } catch (error) {
      options.onFailure(name, error);
      return true;
    }
  };
  return {
    task(task, when = true) {
      if (when) tasks.push(task);
    },
    resource(name, close) {
      resources.push({ name, close });
    },
    start() {
      started = true;
      for (const task of tasks) task.start();
    },
    async stop(boundMs) {
      const deadline = Date.now() + boundMs;
      let inTime = true;
      const steps = [
        ...(started ? tasks.map((t) => ({ name: t.name, work: () => t.stop() })) : []).reverse(),
        ...resources.map((r) => ({ name: r.name, work: r.close })).reverse(),
      ];
      for (const { name, work } of steps) {
        if (await step(name, work, deadline)) continue;
        inTime = false;
        options.onFailure(name, new Error(`${name} did not stop within the bound`));
      }
      return inTime;
    },
    unfinished: () => [...running],
  };
}
