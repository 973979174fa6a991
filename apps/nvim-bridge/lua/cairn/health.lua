-- :checkhealth cairn — Neovim, Node, the bridge, the daemon, as they are.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  local config = require('cairn.config')
  local job = require('cairn.job')
  start('cairn')

  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.10') == 1 then
    ok('Neovim ' .. version .. ': ghost text with virtual lines, highlights and inline inserts')
  elseif vim.fn.has('nvim-0.7') == 1 then
    ok('Neovim ' .. version .. ': ghost text with virtual lines and highlights (inline inserts need 0.10)')
  else
    error('Neovim ' .. version .. ' is too old: Cairn needs 0.7 or newer')
  end

  local node = config.options.node
  if vim.fn.executable(node) == 0 then
    error('Node.js not found (`' .. node .. '`)', { 'install Node 20 or newer', "or set `node` in require('cairn').setup()" })
  else
    local out = vim.fn.system({ node, '--version' }):gsub('%s+$', '')
    local major = tonumber(out:match('^v(%d+)'))
    if major ~= nil and major >= 20 then
      ok('Node ' .. out .. ' (' .. vim.fn.exepath(node) .. ')')
    else
      error('Node ' .. out .. ' is too old: the bridge needs 20 or newer')
    end
  end

  local script = config.bridge_script()
  local dist = vim.fn.fnamemodify(script, ':h:h') .. '/dist/main.js'
  if vim.fn.filereadable(script) == 0 then
    error('the bridge script is missing: ' .. script)
  elseif config.options.bridge == nil and vim.fn.filereadable(dist) == 0 then
    error('the bridge is not built: ' .. dist, { 'run `pnpm install && pnpm build` in the Cairn repository' })
  else
    ok('bridge: ' .. script)
  end

  if not job.running() then
    local root = require('cairn.project').find(vim.loop.cwd())
    if root == nil then
      info('no Cairn project above ' .. vim.loop.cwd() .. ' (no .agentfs/), so the bridge is not started')
    elseif job.exited ~= nil then
      error(job.situation(), { 'any :Cairn command starts it again', 'check `node` and `bridge` in setup()' })
    else
      warn('the bridge is not running for ' .. root, { 'any :Cairn command starts it' })
    end
    return
  end
  -- Asked with a short bound: a bridge that is starting, stuck or busy is reported, never waited for.
  local answered, status = job.ask('cairn/status')
  if not answered then
    warn(status, { 'its last error output: ' .. (job.stderr[#job.stderr] or 'none') })
    return
  end
  ok(string.format('bridge running (pid %d) for %s', status.pid, status.root))
  if status.daemon then
    ok('daemon up: ' .. status.socket)
  elseif status.connecting then
    info('connecting to the daemon at ' .. status.socket .. '; ask again in a moment')
  else
    warn('no daemon runs for ' .. status.root, { ':Cairn up starts it (or `cairn up` in a terminal)' })
  end
end

return M
