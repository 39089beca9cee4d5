/**
 * What a failed run says, by the kind of its failure (the engine's EngineErrorKind): a target that
 * does not answer, a tool missing or misconfigured, and a bug read differently in the run's
 * `error`, its notes and the scan.failed event (`error_kind`), so the reader knows whether to try
 * again later, fix the targets, call the administrator or report a bug.
 */
import { EngineError, type EngineErrorKind } from '../engines/engine.js';

/** A run's failure as stored: the sentence for its `error`, its kind, and the note explaining it. */
export interface RunFailure {
  kind: EngineErrorKind;
  error: string;
  note: string;
}

const NOTES: Record<EngineErrorKind, string> = {
  'network-temporary': 'Failure kind network-temporary: the target or the network did not answer in time; running the scan again later may succeed.',
  'network-permanent': 'Failure kind network-permanent: the target cannot be reached from this deployment; check the scan\'s targets.',
  deadline: 'Failure kind deadline: the run took longer than it may; narrow the targets or the ports.',
  config: 'Failure kind config: the scan tool is missing or misconfigured on this deployment; an administrator must fix it before the scan can run.',
  internal: 'Failure kind internal: a bug in the scan engine, not a problem with the target; the worker log has the details.',
};

/** `text` as a sentence: trimmed, ending with a full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed === '' || /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** The failure of a run whose engine threw `error` (anything but an EngineError is a bug). */
export function failureOf(error: unknown): RunFailure {
  if (!(error instanceof EngineError)) {
    // A bug's message may hold internals (paths, SQL): it goes to the log only.
    return { kind: 'internal', error: 'The scan engine failed unexpectedly (a bug, not a problem with the target); the worker log has the details.', note: NOTES.internal };
  }
  const detail = sentence(error.message);
  const lead: Record<EngineErrorKind, string> = {
    'network-temporary': 'The target did not answer (a temporary network failure):',
    'network-permanent': 'The target could not be reached:',
    deadline: 'The scan ran out of time:',
    config: 'The scan tool is missing or misconfigured on this deployment:',
    internal: 'The scan engine failed unexpectedly (a bug, not a problem with the target):',
  };
  return { kind: error.kind, error: `${lead[error.kind]} ${detail}`, note: NOTES[error.kind] };
}

/** The failure of a run of a scan type that no engine serves here: the registry's reason, as a config failure. */
export function unavailableFailure(reason: string): RunFailure {
  return { kind: 'config', error: reason, note: NOTES.config };
}
