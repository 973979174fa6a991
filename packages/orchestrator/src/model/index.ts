export {
  createModelClient,
  faultOf,
  DEFAULT_OLLAMA_HOST,
  DEFAULT_MODEL_TIMEOUT_MS,
  type ModelClient,
  type ModelClientOptions,
  type ModelAnswer,
  type ModelFault,
  type ChatRequest,
} from './ollama-client.js';
export { buildProgramPrompt, buildAskPrompt, type ChatMessage, type ProgramPromptInput } from './prompt.js';
export { extractProgram, type Extraction } from './extract-program.js';
export { formatRepairReport, type RepairFailure } from './repair-report.js';
export { TOOLS, TOOL_NAMES, renderToolDeclarations, type ToolDoc, type ToolParam } from './tool-docs.js';
