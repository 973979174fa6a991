-- Cairn's messages. One that comes up while Cairn waits a moment for the bridge (an error the bridge reports,
-- its exit) is held until the wait ends: said inside a command such as :checkhealth, an error would abort it.
local M = {}

local holding = 0
local held = {}

--- Says `message` (prefixed `cairn: `) at `level` (default INFO), now or once the current wait ends.
function M.say(message, level)
  level = level or vim.log.levels.INFO
  if holding > 0 then
    table.insert(held, { message, level })
    return
  end
  vim.notify('cairn: ' .. message, level)
end

--- Runs `fn` with messages held; they are said right after, once the editor is free.
function M.holding(fn)
  holding = holding + 1
  local ok, err = pcall(fn)
  holding = holding - 1
  if holding == 0 and #held > 0 then
    local batch = held
    held = {}
    vim.schedule(function()
      for _, m in ipairs(batch) do
        M.say(m[1], m[2])
      end
    end)
  end
  if not ok then
    error(err, 0)
  end
end

return M
