-- A proposal's changes as counted for people: the folders it creates or removes are among its changes but are
-- not files, so "3 files" means what `git diff --stat` would say.
local M = {}

function M.file_count(changes)
  local n = 0
  for _, change in ipairs(changes or {}) do
    if change.kind ~= 'dir' then
      n = n + 1
    end
  end
  return n
end

return M
