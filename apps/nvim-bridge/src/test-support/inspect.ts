import type { EmbeddedNvim } from './nvim.js';

/** One extmark of the `cairn` namespace, flattened for assertions. */
export interface CairnMark {
  row: number;
  col: number;
  virtLines: string[];
  virtText: string;
  pos?: string;
  hl?: string;
  above?: boolean;
}

/** The extmarks Cairn drew in the current buffer, with details, read back from Neovim. */
export function cairnMarks(vim: EmbeddedNvim): Promise<CairnMark[]> {
  return vim.lua<CairnMark[]>(`
    local ns = vim.api.nvim_create_namespace('cairn')
    local out = {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, ns, 0, -1, { details = true })) do
      local d = m[4]
      local lines, text = {}, ''
      for _, line in ipairs(d.virt_lines or {}) do
        local s = ''
        for _, chunk in ipairs(line) do s = s .. chunk[1] end
        table.insert(lines, s)
      end
      for _, chunk in ipairs(d.virt_text or {}) do text = text .. chunk[1] end
      table.insert(out, { row = m[2], col = m[3], virtLines = lines, virtText = text, pos = d.virt_text_pos, hl = d.hl_group, above = d.virt_lines_above })
    end
    return out`);
}

/** The screen as text, row by row, after a redraw. */
export function screenText(vim: EmbeddedNvim): Promise<string[]> {
  return vim.lua<string[]>(`
    vim.cmd('redraw!')
    local rows = {}
    for r = 1, vim.o.lines do
      local s = {}
      for c = 1, vim.o.columns do s[#s + 1] = vim.fn.screenstring(r, c) end
      rows[#rows + 1] = table.concat(s)
    end
    return rows`);
}

export function bufferLines(vim: EmbeddedNvim): Promise<string[]> {
  return vim.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)');
}

export function messages(vim: EmbeddedNvim): Promise<string> {
  return vim.lua<string>("return vim.fn.execute('messages')");
}
