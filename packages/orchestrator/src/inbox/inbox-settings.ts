import { isAbsolute, relative, resolve } from 'node:path';
import type { CairnError, ProgramLang } from '@cairn/api';
import { configError, isConfigObject as isObject, readProjectConfig } from '@cairn/api';
import { type Actor, parseActor } from '@cairn/triage';

/** A reviewer the project names in `.cairn/config.json`: its program (or model) and whether it may approve. */
export interface NamedReviewer {
  name: Actor;
  /** Project-relative path of the reviewer's program; without it a model writes one. */
  codeFile?: string;
  lang: ProgramLang;
  model?: string;
  /** A `do:merge` from this reviewer counts as the approval a merge needs. */
  approver: boolean;
}

/** What runs a `do:custom:<description>` decision. */
export interface CustomHandler {
  /** argv, run in the project's folder; `CAIRN_AGENT`, `CAIRN_THREAD`, `CAIRN_DESCRIPTION` and `CAIRN_ACTOR` are set. */
  command: string[];
  timeoutMs: number;
}

/** The `inbox` section of `.cairn/config.json`. */
export interface InboxSettings {
  reviewers: Map<string, NamedReviewer>;
  customHandler?: CustomHandler;
  /** The protocol rule "merge requires passing checks": a do:merge waits until every automatic check passed. */
  requirePassingChecks: boolean;
}

/**
 * Reads the `inbox` section of `.cairn/config.json` (no file, or no section, means no named reviewers and
 * no custom handler). Anything malformed is refused with where it is, never half-read:
 *
 * ```json
 * { "inbox": {
 *     "reviewers": { "lint-bot": { "code": ".cairn/reviewers/lint.js", "approver": true },
 *                    "qwen": { "model": "qwen2.5-coder:7b" } },
 *     "customHandler": { "command": ["node", ".cairn/handlers/custom.js"], "timeoutMs": 60000 } } }
 * ```
 */
export function loadInboxSettings(root: string, configPath: string): InboxSettings {
  const settings: InboxSettings = { reviewers: new Map(), requirePassingChecks: false };
  const config = readProjectConfig(configPath, INBOX_HINT);
  if (config === undefined) return settings;
  const inbox = config.inbox;
  if (inbox === undefined) return settings;
  if (!isObject(inbox)) throw invalid('"inbox" must be an object');
  for (const key of Object.keys(inbox))
    if (key !== 'reviewers' && key !== 'customHandler' && key !== 'requirePassingChecks')
      throw invalid(`"inbox.${key}" is not a setting (reviewers, customHandler, requirePassingChecks)`);
  if (inbox.requirePassingChecks !== undefined) {
    if (typeof inbox.requirePassingChecks !== 'boolean') throw invalid('"inbox.requirePassingChecks" must be true or false');
    settings.requirePassingChecks = inbox.requirePassingChecks;
  }
  if (inbox.reviewers !== undefined) {
    if (!isObject(inbox.reviewers)) throw invalid('"inbox.reviewers" must be an object of name → { code | model, approver? }');
    for (const [name, raw] of Object.entries(inbox.reviewers)) {
      const at = `"inbox.reviewers.${name}"`;
      const actor = parseActor(name);
      if (!actor.ok) throw invalid(`${at}: ${actor.error.message}`);
      if (!isObject(raw)) throw invalid(`${at} must be an object`);
      for (const key of Object.keys(raw))
        if (!['code', 'lang', 'model', 'approver'].includes(key))
          throw invalid(`${at}.${key} is not a setting (code, lang, model, approver)`);
      const reviewer: NamedReviewer = { name: actor.value, lang: 'js', approver: false };
      if (raw.code !== undefined) {
        if (typeof raw.code !== 'string' || raw.code.trim() === '') throw invalid(`${at}.code must be the path of a program`);
        const file = resolve(root, raw.code);
        const inside = relative(root, file);
        if (inside.startsWith('..') || isAbsolute(inside)) throw invalid(`${at}.code must be inside the project`);
        reviewer.codeFile = inside;
        reviewer.lang = file.endsWith('.py') ? 'py' : 'js';
      }
      if (raw.lang !== undefined) {
        if (raw.lang !== 'js' && raw.lang !== 'py') throw invalid(`${at}.lang must be "js" or "py"`);
        reviewer.lang = raw.lang;
      }
      if (raw.model !== undefined) {
        if (typeof raw.model !== 'string' || raw.model.trim() === '') throw invalid(`${at}.model must be a model name`);
        reviewer.model = raw.model.trim();
      }
      if (raw.approver !== undefined) {
        if (typeof raw.approver !== 'boolean') throw invalid(`${at}.approver must be true or false`);
        reviewer.approver = raw.approver;
      }
      settings.reviewers.set(actor.value, reviewer);
    }
  }
  if (inbox.customHandler !== undefined) {
    const raw = inbox.customHandler;
    if (!isObject(raw)) throw invalid('"inbox.customHandler" must be an object { command, timeoutMs? }');
    const command = raw.command;
    if (!Array.isArray(command) || command.length === 0 || command.some((part) => typeof part !== 'string' || part === ''))
      throw invalid('"inbox.customHandler.command" must be a non-empty list of texts (the program and its arguments)');
    const timeoutMs = raw.timeoutMs ?? 60_000;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs < 1)
      throw invalid('"inbox.customHandler.timeoutMs" must be a positive number');
    settings.customHandler = { command: command as string[], timeoutMs };
  }
  return settings;

  function invalid(message: string): CairnError {
    return configError(message, INBOX_HINT);
  }
}

const INBOX_HINT = 'the inbox settings are described in SPEC.md §6.11';
