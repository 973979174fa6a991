import { authorTools } from '@cairn/orchestrator';
import { describe, expect, it } from 'vitest';
import { argumentsOf, positional, toolList } from './tool-list.js';

describe('the tools an MCP client sees', () => {
  it("are Cairn's session tools and the tool table's author tools, with the table's docs and an environment argument", () => {
    const tools = toolList([]);
    const names = tools.map((tool) => tool.name);
    expect(names.slice(0, 5)).toEqual(['environment_open', 'run_command', 'wait', 'show_diff', 'environment_list']);
    const table = authorTools([]);
    expect(names.slice(5)).toEqual(table.map((tool) => tool.name));
    expect(names).not.toContain('ask_llm');
    expect(names).not.toContain('run_check');
    for (const described of table) {
      const tool = tools.find((t) => t.name === described.name)!;
      if (described.name !== 'submit_result' && described.name !== 'log') expect(tool.description).toBe(described.doc);
      expect(tool.inputSchema.properties).toHaveProperty('environment');
      expect(tool.inputSchema.required?.[0]).toBe('environment');
    }
    expect(tools.find((t) => t.name === 'read_file')!.annotations).toEqual({ readOnlyHint: true });
    expect(tools.find((t) => t.name === 'submit_result')!.inputSchema.required).toEqual(['environment', 'summary']);
  });

  it('offers run_check only when the project declares checks, naming them', () => {
    const check = toolList(['test', 'lint']).find((tool) => tool.name === 'run_check');
    expect(check?.description).toMatch(/The checks: "test", "lint"\.$/);
  });

  it('checks arguments against the schema and puts them in the table’s order', () => {
    const tools = toolList([]);
    const search = tools.find((tool) => tool.name === 'search_content')!;
    expect(argumentsOf(search, { environment: 'a', pattern: 'x', path: 'src' })).toEqual({
      args: { environment: 'a', pattern: 'x', path: 'src' },
    });
    expect(argumentsOf(search, { environment: 'a' })).toEqual({ problem: 'search_content needs the argument "pattern"' });
    expect(argumentsOf(search, { environment: 'a', pattern: 1 })).toEqual({ problem: 'search_content: pattern must be a string' });
    expect(argumentsOf(search, { environment: 'a', pattern: 'x', regex: true })).toMatchObject({
      problem: expect.stringMatching(/has no argument "regex"/),
    });
    const submit = tools.find((tool) => tool.name === 'submit_result')!;
    expect(argumentsOf(submit, { environment: 'a', summary: 's', changed_files: [1] })).toEqual({
      problem: 'submit_result: changed_files must be a list of strings',
    });
    const spec = authorTools([]).find((tool) => tool.name === 'search_content')!;
    expect(positional(spec, { environment: 'a', pattern: 'x' })).toEqual(['x']);
    expect(positional(spec, { environment: 'a', path: 'src', pattern: 'x' })).toEqual(['x', 'src']);
  });
});
