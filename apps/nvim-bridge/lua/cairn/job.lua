-- The bridge process: started with jobstart(…, { rpc = true }), spoken to with rpcrequest / rpcnotify.
local config = require('cairn.config')

local M = { id = nil, root = nil, stderr = {} }

local function notify(message, level)
  vim.schedule(function()
    vim.notify('cairn: ' .. message, level or vim.log.levels.INFO)
  end)
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
        M.id = nil
        if code ~= 0 and not M.stopping then
          local tail = M.stderr[#M.stderr] or ''
          notify(string.format('the bridge stopped (exit %d) %s; :checkhealth cairn says more', code, tail), vim.log.levels.ERROR)
        end
        require('cairn')._bridge_gone()
      end
    end,
  })
  if not ok or id <= 0 then
    notify('could not start the bridge `' .. table.concat(cmd, ' ') .. '`', vim.log.levels.ERROR)
    return false
  end
  M.id = id
  M.root = root
  M.stopping = false
  return true
end

function M.running()
  return M.id ~= nil
end

--- Calls the bridge and waits for its answer; returns ok, value-or-error-message.
function M.request(method, args)
  if M.id == nil then
    return false, 'Cairn is not started here (no .agentfs/ above the current folder?); :Cairn up starts it'
  end
  local ok, result = pcall(vim.rpcrequest, M.id, method, args or {})
  if not ok then
    local message = tostring(result):gsub('^.-Vim:Error invoking .- on channel %d+:\n?', '')
    return false, message
  end
  return true, result
end

--- Tells the bridge something without waiting.
function M.notify(method, args)
  if M.id ~= nil then
    vim.rpcnotify(M.id, method, args or {})
  end
end

function M.stop()
  if M.id ~= nil then
    M.stopping = true
    vim.fn.jobstop(M.id)
    M.id = nil
  end
end

return M
