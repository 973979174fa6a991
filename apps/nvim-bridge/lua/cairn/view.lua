-- Drawing one agent's proposal over a buffer with extmarks in the `cairn` namespace: added lines as virtual
-- lines, removed lines highlighted, a summary at the end of the first changed line, and on Neovim 0.10 and
-- newer, an insert inside one line drawn inline.
local config = require('cairn.config')

local M = {}
M.ns = vim.api.nvim_create_namespace('cairn')
M.inline_supported = vim.fn.has('nvim-0.10') == 1

local function define_highlights()
  local links = { CairnAdd = 'DiffAdd', CairnDelete = 'DiffDelete', CairnChange = 'DiffChange', CairnSummary = 'Comment', CairnStale = 'WarningMsg', CairnCheckPass = 'DiffAdd', CairnCheckFail = 'ErrorMsg' }
  for group, target in pairs(links) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
end
define_highlights()
vim.api.nvim_create_autocmd('ColorScheme', {
  group = vim.api.nvim_create_augroup('cairn_highlights', { clear = true }),
  callback = define_highlights,
})

--- The buffer's text as it would be written (with the final newline unless 'eol' is off).
function M.buffer_text(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  if #lines == 1 and lines[1] == '' then
    return ''
  end
  local text = table.concat(lines, '\n')
  if vim.bo[buf].eol or vim.bo[buf].fixeol then
    text = text .. '\n'
  end
  return text
end

local function split(text)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  return lines
end

local function expand_tabs(buf, line)
  return (line:gsub('\t', string.rep(' ', vim.bo[buf].tabstop)))
end

local function key_label(name)
  local keys = config.options.keys
  if keys == false or not keys[name] then
    return nil
  end
  return keys[name]
end

local function summary_chunks(item, index, count, note)
  local label = string.format(' cairn %s: %s', item.id, item.task)
  if count > 1 then
    label = label .. string.format(' [%d/%d]', index, count)
  end
  local chunks = { { label, 'CairnSummary' } }
  if item.checks ~= nil and item.checks ~= '' then
    local group = item.checks:sub(1, #'✓') == '✓' and 'CairnCheckPass' or (item.checks:sub(1, #'✗') == '✗' and 'CairnCheckFail' or 'CairnSummary')
    table.insert(chunks, { ' ' .. item.checks, group })
  end
  if note ~= nil then
    table.insert(chunks, { ' · ' .. note, 'CairnStale' })
    return chunks
  end
  local hints = {}
  for _, pair in ipairs({ { 'accept', 'accept' }, { 'reject', 'reject' }, { 'cycle', 'next agent' } }) do
    local key = key_label(pair[1])
    if key ~= nil and (pair[1] ~= 'cycle' or count > 1) then
      table.insert(hints, key .. ' ' .. pair[2])
    end
  end
  if #hints > 0 then
    table.insert(chunks, { ' · ' .. table.concat(hints, ' · '), 'CairnSummary' })
  end
  return chunks
end

--- A single changed line whose new text only inserts into the old: returns the column and the inserted text.
local function pure_insert(old, new)
  if #new <= #old then
    return nil
  end
  local prefix = 0
  while prefix < #old and old:byte(prefix + 1) == new:byte(prefix + 1) do
    prefix = prefix + 1
  end
  local added = #new - #old
  if old:sub(prefix + 1) ~= new:sub(prefix + 1 + added) then
    return nil
  end
  return prefix, new:sub(prefix + 1, prefix + added)
end

local function mark(buf, row, col, opts)
  opts.priority = opts.priority or 200
  return vim.api.nvim_buf_set_extmark(buf, M.ns, row, col, opts)
end

local function highlight_removed(buf, first, count)
  local lines = vim.api.nvim_buf_get_lines(buf, first, first + count, false)
  for i, line in ipairs(lines) do
    mark(buf, first + i - 1, 0, { end_row = first + i - 1, end_col = #line, hl_group = 'CairnDelete', hl_eol = true })
  end
end

function M.clear(buf)
  if vim.api.nvim_buf_is_valid(buf) then
    vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  end
end

--- Draws `item` (one agent's proposal carried onto the buffer's current text); returns its hunks.
function M.draw(buf, item, index, count)
  M.clear(buf)
  local line_count = vim.api.nvim_buf_line_count(buf)
  if not item.ok then
    mark(buf, 0, 0, { virt_text = summary_chunks(item, index, count, item.message or 'cannot be shown here'), virt_text_pos = 'eol' })
    return {}
  end
  if item.deletes then
    highlight_removed(buf, 0, line_count)
    mark(buf, 0, 0, { virt_text = summary_chunks(item, index, count, 'deletes this file'), virt_text_pos = 'eol' })
    return { { 1, line_count, 1, 0, {} } }
  end
  local old = M.buffer_text(buf)
  local new_lines = split(item.text)
  local old_lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local indices = vim.diff(old, item.text, { result_type = 'indices' })
  local hunks = {}
  for n, h in ipairs(indices) do
    local a_start, a_count, b_start, b_count = h[1], h[2], h[3], h[4]
    local added = {}
    for i = b_start, b_start + b_count - 1 do
      table.insert(added, new_lines[i] or '')
    end
    table.insert(hunks, { a_start, a_count, b_start, b_count, added })
    local anchor
    local col, inserted
    if M.inline_supported and config.options.inline and a_count == 1 and b_count == 1 then
      col, inserted = pure_insert(old_lines[a_start] or '', added[1])
    end
    if inserted ~= nil then
      anchor = a_start - 1
      mark(buf, anchor, col, { virt_text = { { inserted, 'CairnAdd' } }, virt_text_pos = 'inline' })
    else
      if a_count > 0 then
        highlight_removed(buf, a_start - 1, a_count)
      end
      local virt = {}
      for _, line in ipairs(added) do
        table.insert(virt, { { expand_tabs(buf, line), 'CairnAdd' } })
      end
      if a_count > 0 then
        anchor = a_start + a_count - 2
        if #virt > 0 then
          mark(buf, anchor, 0, { virt_lines = virt })
        end
        anchor = a_start - 1
      elseif a_start == 0 then
        anchor = 0
        mark(buf, 0, 0, { virt_lines = virt, virt_lines_above = true })
      else
        anchor = math.min(a_start, line_count) - 1
        mark(buf, anchor, 0, { virt_lines = virt })
      end
    end
    if n == 1 then
      mark(buf, anchor, 0, { virt_text = summary_chunks(item, index, count), virt_text_pos = 'eol', priority = 250 })
    end
  end
  return hunks
end

return M
