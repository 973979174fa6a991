-- Cairn: agents' proposals as ghost text. This file only defines the :Cairn command, the <Plug> maps and
-- one autocmd that starts Cairn in a Cairn project; everything else loads on first use.
if vim.g.loaded_cairn == 1 then
  return
end
vim.g.loaded_cairn = 1

vim.api.nvim_create_user_command('Cairn', function(opts)
  require('cairn.commands').run(opts)
end, {
  nargs = '*',
  desc = 'Cairn: agents, accept, reject, diff, spawn, up, cycle, refresh, status',
  complete = function(arglead, cmdline, pos)
    return require('cairn.commands').complete(arglead, cmdline, pos)
  end,
})

local plugs = {
  ['cairn-accept'] = { 'accept_here', 'Cairn: accept the proposal shown in this buffer' },
  ['cairn-reject'] = { 'reject_here', 'Cairn: reject the agent whose proposal is shown' },
  ['cairn-next-hunk'] = { 'next_hunk', 'Cairn: jump to the next proposed hunk' },
  ['cairn-prev-hunk'] = { 'prev_hunk', 'Cairn: jump to the previous proposed hunk' },
  ['cairn-accept-hunk'] = { 'accept_hunk', 'Cairn: accept the proposed hunk at the cursor' },
  ['cairn-cycle'] = { 'cycle', 'Cairn: show the next agent proposing changes to this buffer' },
}
for name, spec in pairs(plugs) do
  vim.keymap.set('n', '<Plug>(' .. name .. ')', function()
    require('cairn')[spec[1]]()
  end, { desc = spec[2] })
end

vim.api.nvim_create_autocmd({ 'VimEnter', 'DirChanged' }, {
  group = vim.api.nvim_create_augroup('cairn_autostart', { clear = true }),
  callback = function()
    if vim.g.cairn_auto_start == false or vim.g.cairn_auto_start == 0 then
      return
    end
    local root = require('cairn.project').find(vim.loop.cwd())
    if root ~= nil then
      require('cairn').start(root)
    end
  end,
})
