-- Cairn's options: the defaults, and what setup() was given.
local M = {}

M.defaults = {
  -- Keys in normal mode; set one to false to leave it unmapped, or `keys = false` for none.
  keys = {
    accept = '<Leader>a',
    reject = '<Leader>r',
    accept_hunk = false,
    next_hunk = false,
    prev_hunk = false,
    cycle = false,
  },
  -- The Node.js that runs the bridge (20 or newer).
  node = 'node',
  -- The bridge script; nil finds it beside this plugin.
  bridge = nil,
  -- The `cairn` command :Cairn up runs; nil finds the CLI beside this plugin, else `cairn` on PATH.
  cairn = nil,
  -- How long to wait after an edit before carrying proposals onto the new text.
  debounce_ms = 120,
  -- Inline word-level inserts on Neovim 0.10 and newer.
  inline = true,
}

M.options = vim.deepcopy(M.defaults)

function M.apply(opts)
  opts = opts or {}
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  if opts.keys == false then
    merged.keys = false
  end
  M.options = merged
  return merged
end

--- The folder this plugin lives in (the one holding lua/ and plugin/).
function M.plugin_root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(source, ':p:h:h:h')
end

function M.bridge_script()
  return M.options.bridge or (M.plugin_root() .. '/bin/cairn-nvim-bridge.mjs')
end

return M
