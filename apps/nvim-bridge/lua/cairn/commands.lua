-- :Cairn {subcommand} [args]: agents, accept, reject, diff, checks, spawn, up, cycle, status.
local changes = require('cairn.changes')
local job = require('cairn.job')

local M = {}

local say = require('cairn.say').say

local function ensure_started()
  if job.running() then
    return true
  end
  return require('cairn').start()
end

-- Asks the bridge and hands the answer to `on_result`; failures are said. Never waits longer than job.wait_ms.
local function request(method, args, on_result, opts)
  if not ensure_started() then
    return
  end
  job.call(method, args, function(ok, result)
    if not ok then
      say(result, vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end, opts)
end

-- The agent ids the bridge last gave, for completion when it does not answer at once.
local known_ids = {}

local function remember(list)
  known_ids = {}
  for _, a in ipairs(list) do
    table.insert(known_ids, type(a) == 'table' and a.id or a)
  end
end

local function scratch(name, lines, filetype)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  vim.keymap.set('n', 'q', '<cmd>close<CR>', { buffer = buf, silent = true, desc = 'Cairn: close' })
  return buf
end

local function diff(id)
  if id == nil then
    local state = require('cairn').buffer_state()
    id = state and state.shown
  end
  if id == nil then
    say('which agent? :Cairn diff {id}', vim.log.levels.WARN)
    return
  end
  request('cairn/diff', { id = id }, function(text)
    local lines = vim.split(text, '\n', { plain = true })
    if lines[#lines] == '' then
      table.remove(lines)
    end
    if #lines == 0 then
      lines = { '(' .. id .. ' proposes no changes)' }
    end
    scratch('cairn://diff/' .. id, lines, 'diff')
  end)
end

local function checks(id)
  if id == nil then
    local state = require('cairn').buffer_state()
    id = state and state.shown
  end
  if id == nil then
    say('which agent? :Cairn checks {id}', vim.log.levels.WARN)
    return
  end
  request('cairn/checks', { id = id }, function(text)
    local lines = vim.split(text, '\n', { plain = true })
    if lines[#lines] == '' then
      table.remove(lines)
    end
    scratch('cairn://checks/' .. id, lines, 'cairn-checks')
  end)
end

local function show_agents(list)
  remember(list)
  local lines = { string.format('%-14s %-10s %-5s %s', 'ID', 'STATE', 'FILES', 'TASK') }
  local ids = {}
  for _, a in ipairs(list) do
    local files = type(a.changes) == 'table' and tostring(changes.file_count(a.changes)) or '-'
    table.insert(lines, string.format('%-14s %-10s %-5s %s', a.id, a.state, files, a.task))
    ids[#lines] = a.id
  end
  if #list == 0 then
    table.insert(lines, '(no agents yet: :Cairn spawn {task})')
  end
  local buf = scratch('cairn://agents', lines, 'cairn-agents')
  vim.keymap.set('n', '<CR>', function()
    local id = ids[vim.api.nvim_win_get_cursor(0)[1]]
    if id ~= nil then
      diff(id)
    end
  end, { buffer = buf, silent = true, desc = 'Cairn: the diff of the agent under the cursor' })
end

local function agents()
  request('cairn/agents', nil, show_agents)
end

local function status()
  local lines = {}
  if not job.running() then
    table.insert(lines, job.situation())
  else
    local ok, s = job.ask('cairn/status')
    if ok then
      local daemon = s.daemon and 'up' or (s.connecting and 'connecting…' or 'down — :Cairn up')
      table.insert(lines, string.format('project: %s', s.root))
      table.insert(lines, string.format('daemon: %s (%s)', daemon, s.socket))
      table.insert(lines, string.format('bridge: pid %d on Node %s', s.pid, s.node))
    else
      table.insert(lines, string.format('project: %s', job.root))
      table.insert(lines, s)
    end
  end
  say(table.concat(lines, '\n'))
end

local subcommands = {
  agents = function()
    agents()
  end,
  accept = function(args)
    require('cairn').accept(args[1])
  end,
  reject = function(args)
    require('cairn').reject(args[1])
  end,
  diff = function(args)
    diff(args[1])
  end,
  checks = function(args)
    checks(args[1])
  end,
  spawn = function(args)
    local task = table.concat(args, ' ')
    if task == '' then
      say('say what the agent should do: :Cairn spawn {task}', vim.log.levels.WARN)
      return
    end
    request('cairn/spawn', { task = task }, function(agent)
      say(string.format('spawned %s: %s (its proposal appears here when it submits)', agent.id, agent.task))
    end, { timeout_ms = 60000 })
  end,
  up = function()
    if not ensure_started() then
      return
    end
    say('starting the daemon…')
    request('cairn/up', nil, say, { timeout_ms = 120000 })
  end,
  refresh = function()
    request('cairn/refresh', nil, function() end)
  end,
  cycle = function()
    require('cairn').cycle()
  end,
  status = status,
}

function M.run(opts)
  local args = vim.deepcopy(opts.fargs)
  local name = table.remove(args, 1) or 'agents'
  local fn = subcommands[name]
  if fn == nil then
    say('unknown subcommand ' .. name .. '; try one of: ' .. table.concat(M.names(), ', '), vim.log.levels.ERROR)
    return
  end
  fn(args)
end

function M.names()
  local names = vim.tbl_keys(subcommands)
  table.sort(names)
  return names
end

function M.complete(arglead, cmdline, _)
  local words = vim.split(cmdline, '%s+', { trimempty = false })
  if #words <= 2 then
    return vim.tbl_filter(function(n)
      return n:sub(1, #arglead) == arglead
    end, M.names())
  end
  local sub = words[2]
  if (sub == 'accept' or sub == 'reject' or sub == 'diff' or sub == 'checks') and #words == 3 and job.running() then
    local ok, ids = job.ask('cairn/ids')
    if ok then
      remember(ids)
    else
      -- No answer at once: what the bridge said last, and the agents whose proposals are drawn.
      ids = vim.list_extend(vim.deepcopy(known_ids), require('cairn').proposing_ids())
    end
    local seen = {}
    return vim.tbl_filter(function(id)
      local fresh = not seen[id]
      seen[id] = true
      return fresh and id:sub(1, #arglead) == arglead
    end, ids)
  end
  return {}
end

return M
