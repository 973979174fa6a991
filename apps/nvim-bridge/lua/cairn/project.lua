-- Finding the Cairn project a file or folder belongs to, and paths relative to it.
local M = {}

--- The nearest folder upwards from `dir` holding `.agentfs/`, or nil. As the `cairn` command finds it, the
--- search never crosses a nearer `.git` (a folder, or a file in worktrees and submodules): a repository
--- inside a Cairn project is a project of its own.
function M.find(dir)
  local current = vim.fn.fnamemodify(dir, ':p'):gsub('/$', '')
  if current == '' then
    current = '/'
  end
  while true do
    local base = current == '/' and '' or current
    local stat = vim.loop.fs_stat(base .. '/.agentfs')
    if stat ~= nil and stat.type == 'directory' then
      return current
    end
    if vim.loop.fs_stat(base .. '/.git') ~= nil then
      return nil
    end
    local parent = vim.fn.fnamemodify(current, ':h')
    if parent == current then
      return nil
    end
    current = parent
  end
end

--- The project-relative path of a buffer's file, or nil for buffers that are not files under `root`.
function M.relative(root, buf)
  if root == nil or vim.bo[buf].buftype ~= '' then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' then
    return nil
  end
  local full = vim.fn.fnamemodify(name, ':p')
  local real_root = vim.loop.fs_realpath(root) or root
  local dir = vim.loop.fs_realpath(vim.fn.fnamemodify(full, ':h'))
  if dir ~= nil then
    full = dir .. '/' .. vim.fn.fnamemodify(full, ':t')
  end
  local prefix = real_root:gsub('/$', '') .. '/'
  if full:sub(1, #prefix) ~= prefix then
    return nil
  end
  return full:sub(#prefix + 1)
end

return M
