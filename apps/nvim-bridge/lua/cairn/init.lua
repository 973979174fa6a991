-- Cairn in Neovim. require('cairn').setup({}) is optional: in a folder with .agentfs/ Cairn starts by itself.
local changes = require('cairn.changes')
local config = require('cairn.config')
local job = require('cairn.job')
local project = require('cairn.project')
local view = require('cairn.view')

local M = {}

-- path → agents proposing a change to it (newest first), as the bridge last said.
local index = {}
-- buf → { path, items, shown, hunks, generation }
local buffers = {}
local daemon = { up = false, told = false }
local configured = false

local say = require('cairn.say').say

local function map_keys()
  local keys = config.options.keys
  if keys == false then
    return
  end
  local plugs = {
    accept = '<Plug>(cairn-accept)',
    reject = '<Plug>(cairn-reject)',
    accept_hunk = '<Plug>(cairn-accept-hunk)',
    next_hunk = '<Plug>(cairn-next-hunk)',
    prev_hunk = '<Plug>(cairn-prev-hunk)',
    cycle = '<Plug>(cairn-cycle)',
  }
  for name, plug in pairs(plugs) do
    if keys[name] then
      vim.keymap.set('n', keys[name], plug, { remap = true, silent = true, desc = 'Cairn: ' .. name:gsub('_', ' ') })
    end
  end
end

--- Configures Cairn: keys, Node, the bridge. Calling it is optional.
function M.setup(opts)
  config.apply(opts)
  configured = true
  map_keys()
end

-- Sends a buffer's text to the bridge, which answers with _show.
local function request_proposals(buf)
  local state = buffers[buf]
  if state == nil or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  if index[state.path] == nil then
    view.clear(buf)
    state.items, state.hunks = nil, {}
    return
  end
  job.notify('cairn/buffer', {
    buf = buf,
    tick = vim.api.nvim_buf_get_changedtick(buf),
    path = state.path,
    text = view.buffer_text(buf),
  })
end

local function track(buf)
  if buffers[buf] ~= nil then
    return buffers[buf]
  end
  local path = project.relative(job.root, buf)
  if path == nil then
    return nil
  end
  buffers[buf] = { path = path, items = nil, shown = 1, hunks = {}, generation = 0 }
  return buffers[buf]
end

local function on_edit(buf)
  local state = buffers[buf]
  if state == nil or state.items == nil then
    return
  end
  -- The drawn proposal no longer matches the text: take it down now, carry it onto the new text shortly.
  view.clear(buf)
  state.hunks = {}
  state.generation = state.generation + 1
  local generation = state.generation
  vim.defer_fn(function()
    if buffers[buf] == state and state.generation == generation then
      request_proposals(buf)
    end
  end, config.options.debounce_ms)
end

local function autocmds()
  local group = vim.api.nvim_create_augroup('cairn', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufWritePost', 'BufFilePost' }, {
    group = group,
    callback = function(ev)
      -- The text was (re)read: whatever was drawn was drawn for other text.
      view.clear(ev.buf)
      buffers[ev.buf] = nil
      if track(ev.buf) ~= nil then
        request_proposals(ev.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd({ 'TextChanged', 'TextChangedI' }, {
    group = group,
    callback = function(ev)
      on_edit(ev.buf)
    end,
  })
  vim.api.nvim_create_autocmd({ 'BufWipeout', 'BufUnload' }, {
    group = group,
    callback = function(ev)
      buffers[ev.buf] = nil
    end,
  })
end

--- Starts Cairn for the project at `root` (default: the one above the current folder).
function M.start(root)
  root = root or project.find(vim.loop.cwd())
  if root == nil then
    say('no Cairn project here (no .agentfs/ above ' .. vim.loop.cwd() .. '); `cairn up` in the project creates one', vim.log.levels.WARN)
    return false
  end
  if not configured then
    M.setup({})
  end
  if job.running() and job.root == root then
    return true
  end
  job.stop()
  buffers, index = {}, {}
  autocmds()
  return job.start(root)
end

-- Called by the bridge ------------------------------------------------------------------------------------

local from_bridge = {}

function from_bridge._daemon(up, message)
  daemon.up = up
  if up then
    daemon.told = false
  elseif not daemon.told then
    daemon.told = true
    say(message, vim.log.levels.WARN)
  end
end

function from_bridge._on_proposals(new_index)
  index = new_index or {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) then
      local state = track(buf)
      if state ~= nil then
        request_proposals(buf)
      end
    end
  end
end

local function draw(buf)
  local state = buffers[buf]
  local items = state.items or {}
  if #items == 0 then
    view.clear(buf)
    state.hunks = {}
    return
  end
  if state.shown > #items then
    state.shown = 1
  end
  state.hunks = view.draw(buf, items[state.shown], state.shown, #items)
end

-- `User CairnDrawn` (with the drawn buffer current) and `User CairnAccepted`: for statuslines and scripts.
local function announce(buf, pattern)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent doautocmd <nomodeline> User ' .. pattern)
  end)
end

function from_bridge._show(buf, tick, items)
  local state = buffers[buf]
  if state == nil or not vim.api.nvim_buf_is_loaded(buf) then
    return
  end
  -- An answer about older text is dropped: a newer request is on its way.
  if vim.api.nvim_buf_get_changedtick(buf) ~= tick then
    return
  end
  local shown_id = state.items and state.items[state.shown] and state.items[state.shown].id
  state.items = items
  state.shown = 1
  for i, item in ipairs(items) do
    if item.id == shown_id then
      state.shown = i
    end
  end
  draw(buf)
  announce(buf, 'CairnDrawn')
end

function from_bridge._on_event(event)
  local id = event.agentId
  if event.type == 'agent.submitted' then
    local n = changes.file_count(event.changes)
    say(string.format('%s proposes changes to %d file%s: %s', id, n, n == 1 and '' or 's', event.summary))
  elseif event.type == 'agent.failed' then
    say(string.format('%s failed: %s', id, event.reason), vim.log.levels.WARN)
  elseif event.type == 'accept.waiting' then
    -- an accept queued here or elsewhere waits: for the accepts ahead of it, or for its checks to run again
    if event['for'] == 'turn' then
      say(string.format('accept of %s waits for its turn (%d accept%s ahead)', id, event.ahead or 1, (event.ahead or 1) == 1 and '' or 's'))
    else
      say(string.format('accept of %s waits for its checks to run on the project as it is now: %s', id, table.concat(event.checks or {}, ', ')))
    end
  elseif event.type == 'agent.accepted' or event.type == 'agent.undone' then
    -- Accepted or undone elsewhere (the CLI): unmodified buffers of those files show the result now.
    vim.cmd('silent! checktime')
  end
end

function from_bridge._hello()
  job.on_ready()
end

function from_bridge._answer(id, ok, value)
  job.on_answer(id, ok, value)
end

function from_bridge._message(level, message)
  say(message, ({ info = vim.log.levels.INFO, warn = vim.log.levels.WARN, error = vim.log.levels.ERROR })[level])
end

--- Entry point for the bridge's calls.
function M._bridge(name, ...)
  local fn = from_bridge[name]
  if fn == nil then
    error('cairn: the bridge called unknown function ' .. tostring(name))
  end
  fn(...)
  return true
end

function M._bridge_gone()
  daemon.up = false
  for buf, _ in pairs(buffers) do
    view.clear(buf)
  end
  buffers, index = {}, {}
end

-- Actions -------------------------------------------------------------------------------------------------

local function shown_item(buf)
  local state = buffers[buf]
  if state == nil or state.items == nil then
    return nil, state
  end
  return state.items[state.shown], state
end

-- Reloads the buffers of `paths` from disk; the reload is one undo step (:help 'undoreload').
local function reload(paths)
  local wanted = {}
  for _, p in ipairs(paths) do
    wanted[p] = true
  end
  for buf, state in pairs(buffers) do
    if wanted[state.path] and vim.api.nvim_buf_is_loaded(buf) and not vim.bo[buf].modified then
      view.clear(buf)
      state.items, state.hunks = nil, {}
      vim.api.nvim_buf_call(buf, function()
        vim.cmd('silent! edit!')
      end)
    end
  end
end

local function unsaved_among(paths)
  local wanted = {}
  for _, p in ipairs(paths) do
    wanted[p] = true
  end
  for buf, state in pairs(buffers) do
    if wanted[state.path] and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
      return state.path
    end
  end
  return nil
end

local function report_accept(id, result)
  if result.ok then
    local n = #result.applied
    say(string.format('accepted %s: %d file%s written%s', id, n, n == 1 and '' or 's', result.state == 'reviewing' and ' (the rest stays proposed)' or ''))
  else
    local lines = {}
    for _, c in ipairs(result.conflicts) do
      table.insert(lines, c.path .. ': ' .. c.reason)
    end
    say(string.format('%s not accepted, nothing was written: %s. `cairn diff %s` shows it; `cairn accept %s --force` takes the agent\'s side', id, table.concat(lines, '; '), id, id), vim.log.levels.WARN)
  end
end

-- Accepts `paths` of agent `id` (nil: all its files) once no buffer of an affected file has unsaved changes.
local function accept_agent(id, paths)
  local touched = paths
  if touched == nil then
    touched = {}
    for path, entries in pairs(index) do
      for _, e in ipairs(entries) do
        if e.id == id then
          table.insert(touched, path)
        end
      end
    end
  end
  local unsaved = unsaved_among(touched)
  if unsaved ~= nil then
    say(unsaved .. ' has unsaved changes: save it (:w) first, then accept — Cairn merges with what is on disk', vim.log.levels.WARN)
    return
  end
  -- Refused while the bridge starts: which buffers hold unsaved changes is known only from its index.
  job.call('cairn/accept', { id = id, paths = paths }, function(ok, result)
    if not ok then
      say(result, vim.log.levels.ERROR)
      return
    end
    reload(result.applied)
    report_accept(id, result)
    if result.ok then
      announce(vim.api.nvim_get_current_buf(), 'CairnAccepted')
    end
  end, { when_starting = 'refuse', timeout_ms = false })
end

--- Accepts an agent's proposal: `id` (all its files), or the one shown in the current buffer (that file), or the
--- only agent waiting for review. The bridge answers later; nothing here waits for it longer than a moment.
function M.accept(id)
  if id ~= nil then
    return accept_agent(id, nil)
  end
  local item, state = shown_item(vim.api.nvim_get_current_buf())
  if item ~= nil then
    return accept_agent(item.id, { state.path })
  end
  job.call('cairn/agents', nil, function(ok, agents)
    if not ok then
      say(agents, vim.log.levels.WARN)
      return
    end
    local reviewing = {}
    for _, a in ipairs(agents) do
      if a.state == 'reviewing' then
        table.insert(reviewing, a.id)
      end
    end
    if #reviewing ~= 1 then
      say(#reviewing == 0 and 'no proposal to accept' or 'which agent? :Cairn accept {id} (' .. table.concat(reviewing, ', ') .. ')', vim.log.levels.WARN)
      return
    end
    accept_agent(reviewing[1], nil)
  end, { when_starting = 'refuse' })
end

function M.accept_here()
  return M.accept(nil)
end

--- Rejects an agent: `id`, or the one whose proposal the current buffer shows.
function M.reject(id)
  if id == nil then
    local item = shown_item(vim.api.nvim_get_current_buf())
    if item == nil then
      say('no proposal shown here; :Cairn reject {id}', vim.log.levels.WARN)
      return
    end
    id = item.id
  end
  job.call('cairn/reject', { id = id }, function(ok, result)
    if not ok then
      say(result, vim.log.levels.ERROR)
      return
    end
    say(string.format('rejected %s (`cairn restore %s` brings it back)', id, id))
  end)
end

function M.reject_here()
  return M.reject(nil)
end

local function current_hunk(state, row, direction)
  local hunks = state.hunks or {}
  if #hunks == 0 then
    return nil
  end
  if direction == nil then
    for _, h in ipairs(hunks) do
      local first, last = h[1], h[1] + math.max(h[2], 1) - 1
      if h[2] == 0 then
        first, last = h[1], h[1] + 1
      end
      if row >= first and row <= last then
        return h
      end
    end
    direction = 1
  end
  if direction > 0 then
    for _, h in ipairs(hunks) do
      if h[1] > row then
        return h
      end
    end
    return hunks[1]
  end
  for i = #hunks, 1, -1 do
    if hunks[i][1] < row then
      return hunks[i]
    end
  end
  return hunks[#hunks]
end

--- Accepts the hunk at (or after) the cursor into the buffer and saves the file; `u` takes it back.
function M.accept_hunk()
  local buf = vim.api.nvim_get_current_buf()
  local item, state = shown_item(buf)
  if item == nil or #(state.hunks or {}) == 0 then
    say('no proposed hunk in this buffer', vim.log.levels.WARN)
    return false
  end
  if vim.bo[buf].modified then
    say('this buffer has unsaved changes: save it (:w) first, then accept the hunk', vim.log.levels.WARN)
    return false
  end
  if item.deletes then
    M.accept(nil)
    return true
  end
  local h = current_hunk(state, vim.api.nvim_win_get_cursor(0)[1])
  local a_start, a_count, added = h[1], h[2], h[5]
  local first = a_count > 0 and a_start - 1 or a_start
  vim.api.nvim_buf_set_lines(buf, first, first + a_count, false, added)
  vim.cmd('silent write')
  say(string.format('accepted one hunk of %s into %s', item.id, state.path))
  return true
end

local function jump(direction)
  local buf = vim.api.nvim_get_current_buf()
  local _, state = shown_item(buf)
  if state == nil or #(state.hunks or {}) == 0 then
    say('no proposed hunk in this buffer', vim.log.levels.WARN)
    return
  end
  local h = current_hunk(state, vim.api.nvim_win_get_cursor(0)[1], direction)
  local row = math.max(1, math.min(h[2] > 0 and h[1] or h[1] + 1, vim.api.nvim_buf_line_count(buf)))
  vim.api.nvim_win_set_cursor(0, { row, 0 })
end

function M.next_hunk()
  jump(1)
end

function M.prev_hunk()
  jump(-1)
end

--- Shows the next agent proposing changes to the current buffer.
function M.cycle()
  local buf = vim.api.nvim_get_current_buf()
  local _, state = shown_item(buf)
  if state == nil or #(state.items or {}) < 2 then
    say('only one agent proposes changes here', vim.log.levels.INFO)
    return
  end
  state.shown = state.shown % #state.items + 1
  draw(buf)
end

--- What is drawn in a buffer (for tests and statuslines): { path, agents = { ids }, shown = id, hunks = n }.
function M.buffer_state(buf)
  local state = buffers[buf or vim.api.nvim_get_current_buf()]
  if state == nil then
    return nil
  end
  local ids = {}
  for _, item in ipairs(state.items or {}) do
    table.insert(ids, item.id)
  end
  return { path = state.path, agents = ids, shown = ids[state.shown], hunks = #(state.hunks or {}) }
end

function M.daemon_up()
  return daemon.up
end

--- The ids of the agents whose proposals the bridge last reported (for completion when it is slow to answer).
function M.proposing_ids()
  local seen, ids = {}, {}
  for _, entries in pairs(index) do
    for _, e in ipairs(entries) do
      if not seen[e.id] then
        seen[e.id] = true
        table.insert(ids, e.id)
      end
    end
  end
  table.sort(ids)
  return ids
end

return M
