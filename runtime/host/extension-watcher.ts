import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';

/** An editor saves a file in several writes (and a formatter may follow): wait for the burst to end. */
const DEBOUNCE_MS = 150;

/**
 * Watches the extensions folder (`extensions/<ref>/…`, recursively) and reports the ref whose
 * code changed, debounced, so `gantry serve` picks up edits without a restart, as it swaps
 * regenerated code.
 */
export class ExtensionWatcher {
  private readonly watcher: fs.FSWatcher | null;
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    dir: string,
    private readonly onChange: (ref: string) => void,
    log: Logger,
  ) {
    let watcher: fs.FSWatcher | null = null;
    try {
      // Created when missing (as generated/ is), so a project's first extension is picked up too.
      fs.mkdirSync(dir, { recursive: true });
      watcher = fs.watch(dir, { recursive: true, persistent: false }, (_event, file) => {
        const ref = file?.split(path.sep)[0];
        if (ref) this.changed(ref);
      });
      watcher.on('error', (error) => log.warn({ err: error, dir }, 'extensions watch lost'));
    } catch (error) {
      log.warn({ err: error, dir }, 'extensions not watched: edits need a restart');
    }
    this.watcher = watcher;
  }

  close(): void {
    this.watcher?.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private changed(ref: string): void {
    clearTimeout(this.timers.get(ref));
    this.timers.set(
      ref,
      setTimeout(() => {
        this.timers.delete(ref);
        this.onChange(ref);
      }, DEBOUNCE_MS),
    );
  }
}
