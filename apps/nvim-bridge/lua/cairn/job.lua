-- The bridge process, started with jobstart(…, { rpc = true }). Calls go out as `cairn/call` notifications and
-- their answers come back through `_answer`, so the editor never waits on the bridge longer than `wait_ms`.
local config = require('cairn.config')

local M = {
  id = nil,
  root = nil,
  pid = nil,
  stderr = {},
  -- Set when the bridge says hello: it hears calls from then on.
  ready = false,
  started_at = nil,
  -- How the last bridge ended when it was not stopped: { code = n }.
  exited = nil,
}

-- The longest a command or a check waits for an answer before it goes on without it.
M.wait_ms = 200
-- How long an answer may take before the call is given up and its answer, if it comes, dropped.
M.timeout_ms = 15000

-- id → { method, done, timer, answer = { ok, value } }
local pending = {}
local next_id = 0

local say = require('cairn.say')

local function notify(message, level)
  vim.schedule(function()
    say.say(message, level)
  end)
end

local function seconds_since(t)
  return (vim.loop.hrtime() - t) / 1e9
end

local function label(method)
  return '`' .. method:gsub('^cairn/', '') .. '`'
end

local function last_error()
  return M.stderr[#M.stderr] or 'none'
end

local function starting()
  return string.format('the bridge is still starting (pid %d, started %.1f s ago)', M.pid, seconds_since(M.started_at))
end

--- What keeps the bridge from answering, as a phrase for messages: not running (and why), starting, or stuck.
function M.situation()
  if M.id == nil then
    if M.exited ~= nil then
      return string.format('the bridge is not running (it exited with code %d); its last error output: %s', M.exited.code, last_error())
    end
    if M.root == nil then
      return 'Cairn is not started here (no .agentfs/ above the current folder?); :Cairn up starts it'
    end
    return 'the bridge is not running; any :Cairn command starts it'
  end
  if M.ready then
    return string.format('the bridge (pid %d) is up', M.pid)
  end
  local age = seconds_since(M.started_at)
  if age < 10 then
    return starting() .. '; ask again in a moment'
  end
  return string.format(
    'the bridge (pid %d) started %d s ago and has not answered yet; its last error output: %s',
    M.pid,
    math.floor(age),
    last_error()
  )
end

local function settle(id, ok, value)
  local call = pending[id]
  if call == nil then
    return
  end
  pending[id] = nil
  if call.timer ~= nil then
    call.timer:stop()
    call.timer:close()
  end
  if call.waiting then
    -- The caller is in its bounded wait and runs `done` itself.
    call.answer = { ok, value }
  else
    vim.schedule(function()
      call.done(ok, value)
    end)
  end
end

local function fail_all(message)
  for id, _ in pairs(pending) do
    settle(id, false, message)
  end
end

--- Starts the bridge for `root` unless it runs; returns true when it runs.
function M.start(root)
  if M.id ~= nil then
    return true
  end
  local node = config.options.node
  if vim.fn.executable(node) == 0 then
    notify('Node.js (`' .. node .. '`) was not found; install Node 20 or set `node` in setup()', vim.log.levels.ERROR)
    return false
  end
  local script = config.bridge_script()
  local cmd = { node, script, '--project', root }
  if config.options.cairn ~= nil then
    table.insert(cmd, '--cairn')
    table.insert(cmd, config.options.cairn)
  end
  M.stderr = {}
  local ok, id = pcall(vim.fn.jobstart, cmd, {
    rpc = true,
    cwd = root,
    on_stderr = function(_, data)
      for _, line in ipairs(data or {}) do
        if line ~= '' then
          table.insert(M.stderr, line)
          if #M.stderr > 50 then
            table.remove(M.stderr, 1)
          end
        end
      end
    end,
    on_exit = function(job, code)
      if M.id == job then
        M.id, M.ready = nil, false
        if not M.stopping then
          M.exited = { code = code }
        end
        fail_all(M.situation())
        if code ~= 0 and not M.stopping then
          notify(string.format('the bridge stopped (exit %d): %s; :checkhealth cairn says more', code, last_error()), vim.log.levels.ERROR)
        end
        require('cairn')._bridge_gone()
      end
    end,
  })
  if not ok or id <= 0 then
    notify('could not start the bridge `' .. table.concat(cmd, ' ') .. '`', vim.log.levels.ERROR)
    return false
  end
  M.id, M.root, M.pid = id, root, vim.fn.jobpid(id)
  M.ready, M.stopping, M.exited = false, false, nil
  M.started_at = vim.loop.hrtime()
  return true
end

function M.running()
  return M.id ~= nil
end

--- Called when the bridge says hello: it answers calls from now on.
function M.on_ready()
  M.ready = true
end

--- Called with the bridge's answer to call `id`; an answer to a call given up on is dropped.
function M.on_answer(id, ok, value)
  settle(id, ok, value)
end

-- Lets the editor run (the bridge's answers arrive meanwhile) for up to `ms`, or until `condition` holds.
local function wait(ms, condition)
  if ms > 0 then
    say.holding(function()
      vim.wait(ms, condition, 10)
    end)
  end
end

--[[
Asks the bridge `method` with `args`; `done(ok, value_or_message)` runs exactly once: with the answer, or with
why there is none (not running, still starting, no answer within `opts.timeout_ms`, never when it is false). A quick answer is
handled before this returns: it waits up to `opts.wait_ms` (default M.wait_ms), never longer. While the
bridge starts, the call is sent anyway and answered once it is up (and the user is told so), unless
`opts.when_starting = 'refuse'`. Returns the call's id while it waits for an answer.
]]
function M.call(method, args, done, opts)
  opts = opts or {}
  local wait_ms = opts.wait_ms or M.wait_ms
  if M.id == nil then
    done(false, M.situation())
    return
  end
  local t0 = vim.loop.hrtime()
  if not M.ready then
    wait(wait_ms, function()
      return M.ready or M.id == nil
    end)
    if M.id == nil or (not M.ready and opts.when_starting == 'refuse') then
      done(false, M.situation())
      return
    end
    if not M.ready then
      notify(string.format('%s; %s goes through once it is up', starting(), label(method)))
    end
  end
  next_id = next_id + 1
  local id = next_id
  local timeout_ms = opts.timeout_ms
  if timeout_ms == nil then
    timeout_ms = M.timeout_ms
  end
  local call = { method = method, done = done, waiting = true }
  pending[id] = call
  -- `timeout_ms = false`: a call that may rightly take long (an accept waiting in the queue) is answered when
  -- done, or settled when the bridge exits
  if timeout_ms then
    call.timer = vim.loop.new_timer()
    call.timer:start(
      timeout_ms,
      0,
      vim.schedule_wrap(function()
        if pending[id] == call then
          local why = M.ready and '; :checkhealth cairn says more' or ': ' .. M.situation()
          settle(id, false, string.format('no answer from the bridge to %s in %d s%s', label(method), math.floor(timeout_ms / 1000), why))
        end
      end)
    )
  end
  local sent = pcall(vim.rpcnotify, M.id, 'cairn/call', { id = id, method = method, args = args or vim.empty_dict() })
  if not sent then
    settle(id, false, M.situation())
  end
  local left = wait_ms - (vim.loop.hrtime() - t0) / 1e6
  wait(left, function()
    return call.answer ~= nil
  end)
  call.waiting = false
  if call.answer ~= nil then
    done(call.answer[1], call.answer[2])
  end
  return id
end

--- Gives up call `id`: its `done` never runs, and its answer, if it comes, is dropped.
function M.forget(id)
  local call = id and pending[id]
  if call ~= nil then
    pending[id] = nil
    call.timer:stop()
    call.timer:close()
  end
end

--- Asks and waits at most `wait_ms` (default M.wait_ms) for the answer: ok, value — or false and why not.
function M.ask(method, args, wait_ms)
  wait_ms = wait_ms or M.wait_ms
  local result
  local id = M.call(method, args, function(ok, value)
    result = { ok, value }
  end, { wait_ms = wait_ms, when_starting = 'refuse' })
  if result ~= nil then
    return result[1], result[2]
  end
  M.forget(id)
  if not M.ready then
    return false, M.situation()
  end
  return false, string.format('the bridge (pid %d) did not answer %s within %.1f s; ask again in a moment', M.pid, label(method), wait_ms / 1000)
end

--- Tells the bridge something without waiting.
function M.notify(method, args)
  if M.id ~= nil then
    pcall(vim.rpcnotify, M.id, method, args or {})
  end
end

function M.stop()
  if M.id ~= nil then
    M.stopping = true
    vim.fn.jobstop(M.id)
    M.id, M.ready = nil, false
    fail_all('the bridge was stopped')
  end
end

return M
