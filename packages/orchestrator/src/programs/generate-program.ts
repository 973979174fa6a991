import { extractProgram } from '../model/extract-program.js';
import { buildProgramPrompt } from './prompt.js';
import { governedModelEffect } from '../run/governed-effect.js';
import type { RunContext } from '../run/run-context.js';
import { modelParams } from '../tools/ask-llm.js';
import { buildToolbox } from '../tools/tool-table.js';
import type { AgentFailure, ProgramLang } from '../api/types.js';
import { appendCairnEntry, SCHEMAS } from '../workspace/journal-entries.js';

/** What asking the model for a program came to. */
export type Generation =
  | { type: 'program'; code: string }
  /** The answer held no usable program (no code, a truncated block): worth a repair round. */
  | { type: 'unusable'; answer: string; problem: string }
  /** The model could not be asked (not running, not pulled, out of tokens): no repair will help. */
  | { type: 'fault'; failure: AgentFailure };

/** The answer length a program is asked for. */
const PROGRAM_MAX_TOKENS = 4096;

/**
 * Asks the model for a program that solves the task with the tool functions: the prompt carries the typed
 * tool declarations, the task, the project's file tree (read as a governed effect) and, for a repair or a
 * revision, the earlier program with its report or the reviewer's feedback. The call is a governed
 * `llm.generate` effect; prompt and answer are kept as blobs, so a replay needs no model.
 */
export async function generateProgram(
  ctx: RunContext,
  lang: ProgramLang,
  previous?: { program: string; report: string },
): Promise<Generation> {
  let fileTree: string;
  try {
    fileTree = String(buildToolbox(ctx).get_file_tree!());
  } catch (error) {
    fileTree = `(the file tree could not be read: ${(error as Error).message})`;
  }
  const messages = buildProgramPrompt({
    task: ctx.task,
    lang,
    fileTree,
    ...(ctx.feedback === undefined ? {} : { feedback: ctx.feedback }),
    ...(ctx.review === undefined ? {} : { reviewer: true }),
    ...(previous === undefined ? {} : { previous }),
  });
  const outcome = await governedModelEffect(ctx, modelParams(ctx, messages, PROGRAM_MAX_TOKENS, '0.2'), { tool: 'generate' });
  if (!outcome.ok) {
    if (outcome.denied) return { type: 'fault', failure: { code: 'budget', message: `the model could not be asked: ${outcome.message}` } };
    const payload = outcome as { message: string; code: string };
    return { type: 'fault', failure: faultOf(payload.code, payload.message) };
  }
  const answer = ctx.blobs.text(String(outcome.payload.output_ref));
  const extracted = extractProgram(answer, lang);
  const value = extracted.ok ? { program_ref: ctx.view.blobs.put(extracted.code) } : { problem: extracted.problem };
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.programExtracted, value));
  return extracted.ok ? { type: 'program', code: extracted.code } : { type: 'unusable', answer, problem: extracted.problem };
}

function faultOf(code: string, message: string): AgentFailure {
  const hints: Record<string, string> = {
    'model-unreachable': 'start Ollama with `ollama serve` (or set OLLAMA_HOST), then spawn the agent again',
    'model-missing': 'pull the model with `ollama pull <model>`, or pick another with --model',
    'model-timeout': 'the model took too long; try a smaller model or a simpler task',
  };
  const failure: AgentFailure = { code: code.startsWith('model-') ? code : 'model-error', message };
  const hint = hints[code];
  if (hint !== undefined) failure.hint = hint;
  return failure;
}
