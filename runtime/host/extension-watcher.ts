import fs from 'node:fs';
import path from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from 'pino';

/** An editor saves a file in several writes (and a formatter may follow): wait for the burst to end. */
const DEBOUNCE_MS = 150;

/**
 * Watches the extensions folder (`extensions/<ref>/…`, recursively) and reports the ref whose
 * code changed, debounced, so `gantry serve` picks up edits without a restart, as it swaps
 * regenerated code. chokidar rather than Node's recursive `fs.watch`: on Linux the latter stops
 * seeing in-place writes to a file once it has been replaced by a rename (as editors save and
 * `git checkout` writes), while chokidar watches the new file.
 */
export class ExtensionWatcher {
  private readonly watcher: FSWatcher | null;
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly dir: string,
    private readonly onChange: (ref: string) => void,
    log: Logger,
  ) {
    let watcher: FSWatcher | null = null;
    try {
      // Created when missing (as generated/ is), so a project's first extension is picked up too.
      fs.mkdirSync(dir, { recursive: true });
      watcher = watch(dir, { ignoreInitial: true, persistent: false });
      watcher.on('all', (_event, file) => this.changed(file));
      watcher.on('error', (error) => log.warn({ err: error, dir }, 'extensions watch lost'));
    } catch (error) {
      log.warn({ err: error, dir }, 'extensions not watched: edits need a restart');
    }
    this.watcher = watcher;
  }

  async close(): Promise<void> {
    await this.watcher?.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private changed(file: string): void {
    const ref = path.relative(this.dir, file).split(path.sep)[0];
    if (!ref || ref === '..') return;
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
