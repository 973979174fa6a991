import type { CborValue } from '@cairn/air';
import type { AgentFailure, ProgramLang } from '@cairn/api';
import { MAX_TOKENS_PER_CALL } from '@cairn/governance';
import type { ModelFault } from '@cairn/model';
import { buildRepoMap, type Extraction, estimateChatTokens, extractProgram, MIN_ANSWER_TOKENS, parseModelName } from '@cairn/model';
import { appendCairnEntry, SCHEMAS } from '@cairn/workspace';
import type { RunContext } from '../run/run-context.js';
import { modelParams, temperatureOf } from '../tools/ask-llm.js';
import { governedModelCall } from '../tools/model-call.js';
import { appendModelEntry, MODEL_SCHEMAS, replayModelEntry } from '../tools/model-journal.js';
import { buildToolbox } from '../tools/tool-table.js';
import { buildLegacyProgramPrompt } from './legacy-prompt.js';
import { buildProgramPrompt, type ProgramPromptInput } from './prompt.js';

/** What asking the model for a program came to. */
export type Generation =
  | { type: 'program'; code: string }
  /** The answer held no usable program (no code, a truncated block): worth a repair round. */
  | { type: 'unusable'; answer: string; problem: string }
  /** The model could not be asked (not running, not pulled, out of tokens): no repair will help. */
  | { type: 'fault'; failure: AgentFailure };

/** What a live generation needs from the agent around it: the model's window, the answer length, the person's recent edits. */
export interface GenerationSetup {
  /** The window requests to this model ask for: its context length capped by the agent's `contextTokens`. */
  window(model: string): Promise<{ ok: true; tokens: number } | { ok: false; fault: ModelFault }>;
  /** The answer length a program is asked for (default 4,096). */
  maxOutputTokens?: number;
  /** Files the person edited lately, newest first. */
  recent?: () => readonly string[];
  /** False for a file the agent's policy keeps it from reading. */
  mayRead?: (path: string) => boolean;
}

/** The answer length a program is asked for, unless the agent's settings say otherwise. */
export const PROGRAM_MAX_TOKENS = 4096;

/** Tokens kept free in the window for what an estimate may miss. */
const SAFETY_TOKENS = 32;

/**
 * Asks the model for a program that solves the task with the tool functions. The prompt is built to fit the
 * model's window: the rules, typed tool declarations and task first, then as much of the repo map (the files
 * the task names, recent edits, files matching its words, the folder outline) as the room left after the
 * answer allows. The prompt, its estimate and the map's make-up are journaled (`cairn/PromptBuilt@1`) before
 * the governed `llm.generate` call; a replay takes them from the journal and needs no model and no project.
 */
export async function generateProgram(
  ctx: RunContext,
  lang: ProgramLang,
  previous?: { program: string; report: string },
  setup?: GenerationSetup,
): Promise<Generation> {
  const input: Omit<ProgramPromptInput, 'projectMap'> = {
    task: ctx.task,
    lang,
    ...(ctx.feedback === undefined ? {} : { feedback: ctx.feedback }),
    ...(ctx.review === undefined ? {} : { reviewer: true }),
    ...(ctx.checks.length === 0 ? {} : { checks: ctx.checks.map((check) => check.name) }),
    ...(previous === undefined ? {} : { previous }),
  };
  let params: Record<string, CborValue>;
  if (ctx.mode === 'replay') {
    const recorded = replayModelEntry(ctx, MODEL_SCHEMAS.promptBuilt);
    if (recorded === undefined) params = legacyParams(ctx, input);
    else if (typeof recorded.fault_code === 'string') return faultGeneration(ctx, recorded.fault_code, String(recorded.fault_message));
    else params = recordedParams(recorded);
  } else {
    if (setup === undefined) params = legacyParams(ctx, input);
    else {
      const built = await buildFittedPrompt(ctx, input, setup);
      if ('fault' in built) {
        const { code, message } = built.fault;
        ctx.transaction(() =>
          appendModelEntry(ctx.journal, MODEL_SCHEMAS.promptBuilt, { run: ctx.run, fault_code: code, fault_message: message }),
        );
        return faultGeneration(ctx, code, message);
      }
      params = built.params;
    }
  }
  const outcome = await governedModelCall(ctx, params, { tool: 'generate' });
  if (!outcome.ok) {
    if (outcome.denied) return { type: 'fault', failure: { code: 'budget', message: `the model could not be asked: ${outcome.message}` } };
    return faultGeneration(ctx, outcome.code, outcome.message, outcome.hint);
  }
  const answer = ctx.blobs.text(String(outcome.payload.output_ref));
  // an answer the output limit stopped is unfinished even where its code block looks whole: it is never run
  const extracted: Extraction =
    outcome.doneReason === 'length'
      ? { ok: false, problem: `the answer was cut off at the output limit (${String(params.max_tokens)} tokens) before it ended` }
      : extractProgram(answer, lang);
  const value = extracted.ok ? { program_ref: ctx.view.blobs.put(extracted.code) } : { problem: extracted.problem };
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.programExtracted, value));
  return extracted.ok ? { type: 'program', code: extracted.code } : { type: 'unusable', answer, problem: extracted.problem };
}

async function buildFittedPrompt(
  ctx: RunContext,
  input: Omit<ProgramPromptInput, 'projectMap'>,
  setup: GenerationSetup,
): Promise<{ params: Record<string, CborValue> } | { fault: { code: string; message: string } }> {
  const started = Date.now();
  const window = await setup.window(ctx.model);
  if (!window.ok) return { fault: window.fault };
  const frame = estimateChatTokens(buildProgramPrompt({ ...input, projectMap: '' }));
  const left = ctx.tokensLeft();
  const wanted = Math.min(
    setup.maxOutputTokens ?? PROGRAM_MAX_TOKENS,
    MAX_TOKENS_PER_CALL,
    left === undefined ? Number.MAX_SAFE_INTEGER : Math.max(1, Number(left)),
  );
  // a small window gives the answer what the instructions leave, down to the shortest answer worth having
  const output = Math.min(wanted, window.tokens - frame - SAFETY_TOKENS);
  if (output < Math.min(MIN_ANSWER_TOKENS, wanted))
    return {
      fault: {
        code: 'model-window',
        message: `the ${window.tokens}-token window of ${ctx.model} cannot hold the instructions and task (~${frame} tokens) and an answer`,
      },
    };
  const map = await buildRepoMap({
    view: ctx.view,
    task: ctx.feedback === undefined ? ctx.task : `${ctx.task}\n${ctx.feedback}`,
    budgetTokens: window.tokens - frame - output - SAFETY_TOKENS,
    ...(setup.recent === undefined ? {} : { recent: setup.recent() }),
    ...(setup.mayRead === undefined ? {} : { mayRead: setup.mayRead }),
  });
  const messages = buildProgramPrompt({ ...input, projectMap: map.text });
  const params = modelParams(ctx, messages, output, temperatureOf(ctx));
  const estimate = estimateChatTokens(messages);
  const value: Record<string, CborValue> = {
    run: ctx.run,
    ...params,
    window: window.tokens,
    prompt_estimate: estimate,
    prompt_chars: messages.reduce((n, m) => n + m.content.length, 0),
    build_ms: Date.now() - started,
    map: {
      files: map.stats.files,
      named: map.stats.named.slice(0, 20),
      missing: map.stats.missing.slice(0, 20),
      recent: map.stats.recent,
      matched: map.stats.matched,
      outlined: map.stats.outlined,
      depth: map.stats.depth,
      complete: map.stats.complete,
      searched_files: map.stats.searched.files,
      search_cut: map.stats.searched.cut,
    },
  };
  ctx.transaction(() => appendModelEntry(ctx.journal, MODEL_SCHEMAS.promptBuilt, value));
  return { params };
}

/** The effect's parameters as a recorded `cairn/PromptBuilt@1` holds them. */
function recordedParams(recorded: Readonly<Record<string, unknown>>): Record<string, CborValue> {
  return {
    provider: String(recorded.provider),
    model: String(recorded.model),
    temperature: String(recorded.temperature),
    max_tokens: Number(recorded.max_tokens),
    input_ref: String(recorded.input_ref),
  };
}

/** The prompt of a journal written before prompts were fitted to a window: the file tree through `get_file_tree`, then the old layout. */
function legacyParams(ctx: RunContext, input: Omit<ProgramPromptInput, 'projectMap'>): Record<string, CborValue> {
  let fileTree: string;
  try {
    fileTree = String(buildToolbox(ctx).get_file_tree!());
  } catch (error) {
    fileTree = `(the file tree could not be read: ${(error as Error).message})`;
  }
  return modelParams(ctx, buildLegacyProgramPrompt({ ...input, fileTree }), PROGRAM_MAX_TOKENS, '0.2');
}

/** The failure of a generation the model could not answer, with the server's own hint where it gave one, else the code's. */
function faultGeneration(ctx: RunContext, code: string, message: string, serverHint?: string): Generation {
  const provider = parseModelName(ctx.model).provider;
  const hints: Record<string, string> = {
    'model-unreachable':
      provider === 'ollama'
        ? 'start Ollama with `ollama serve` (or set OLLAMA_HOST), then spawn the agent again'
        : 'start the OpenAI-compatible server (or set OPENAI_BASE_URL), then spawn the agent again',
    'model-missing':
      provider === 'ollama'
        ? 'pull the model with `ollama pull <model>`, or pick another with --model'
        : '`cairn models` lists the models the server has',
    'model-timeout': 'the model took too long; try a smaller model or a simpler task',
    'model-auth': 'set OPENAI_API_KEY (or model.apiKey in .cairn/config.json) to a key the server accepts',
    'model-busy': 'the server stayed busy; try again when it has less to do',
    'model-window': "use a model with a larger context, or set model.contextTokens in .cairn/config.json to the server's window",
  };
  const failure: AgentFailure = { code: code.startsWith('model-') || code === 'cancelled' ? code : 'model-error', message };
  const hint = serverHint ?? hints[code];
  if (hint !== undefined) failure.hint = hint;
  return { type: 'fault', failure };
}
