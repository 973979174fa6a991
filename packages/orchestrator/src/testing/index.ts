// `@cairn/orchestrator/testing`: what tests and benchmarks of surfaces built on Cairn need to run the model path
// without a model: real HTTP servers on loopback that speak Ollama's API and the OpenAI chat-completions API
// with scripted answers.

export {
  AGENT_CLI_VERSIONS,
  type AgentCliLookup,
  type AgentCliName,
  type AgentCliRun,
  type AgentCliSetup,
  agentCliArgs,
  agentCliEnv,
  agentCliForTests,
  agentCliPrefixes,
  agentClisRequired,
  findAgentCli,
  REQUIRE_AGENT_CLIS,
  type RunAgentCliOptions,
  runAgentCli,
} from '@cairn/exec/testing';
export { describeCairnApiContract } from './cairn-api-contract.js';
export { type AnthropicToolUse, type AnthropicTurn, type ScriptedAnthropic, startScriptedAnthropic } from './scripted-anthropic.js';
export { type ScriptedOllama, type ScriptedOllamaOptions, startScriptedOllama } from './scripted-ollama.js';
export { type ScriptedOpenAi, type ScriptedOpenAiOptions, startScriptedOpenAi } from './scripted-openai.js';
export { programAnswer, type ScriptedReply, type ScriptedRequest } from './scripted-reply.js';
export { type ResponsesCall, type ResponsesTurn, type ScriptedResponses, startScriptedResponses } from './scripted-responses.js';
// Projects for tests of packages built on this one (the daemon, workers): a sample project in a temp folder,
// and the contract suite every implementation of CairnApi passes.
export { makeTempProject, SAMPLE_FILES, type TempProject } from './temp-project.js';
