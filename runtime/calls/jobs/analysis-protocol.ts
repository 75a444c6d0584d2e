import type { AnalyzeOptions } from '../analysis/analyze.js';
import type { CallAnalysis } from '../analysis/result.js';
import type { AudioErrorCode } from '../audio/errors.js';

/** Messages between the analysis pool and its worker threads. */
export type ToWorker =
  | { readonly type: 'start'; readonly id: number; readonly options: AnalyzeOptions }
  | { readonly type: 'chunk'; readonly id: number; readonly bytes: Uint8Array }
  | { readonly type: 'end'; readonly id: number };

export type FromWorker =
  | { readonly type: 'ack'; readonly id: number }
  | { readonly type: 'done'; readonly id: number; readonly result: CallAnalysis }
  | { readonly type: 'error'; readonly id: number; readonly audioCode?: AudioErrorCode; readonly message: string };
