/**
 * The shell script that builds an agent's writable view, run as PID 1 of fresh mount and pid namespaces in a
 * fresh user namespace (`unshare --user --map-root-user unshare --mount --pid --fork --kill-child`). Unlike a
 * check's, the view keeps the machine's network: an agent CLI talks to its model's API.
 *
 * It fills the new root `layOutRoot` laid out (itself bound read-only): the system's folders bound read-only,
 * a few device nodes, a fresh /proc, /tmp, /dev/shm and /dev/pts (for programs that open terminals of their
 * own), an empty home folder in /tmp/home with only the
 * entries the user named bound in read-only, and the project at its own path: an overlay whose lower layers
 * are the agent's proposal so far (when it has one) over the working tree, and whose upper layer is a folder
 * on disk that outlives the run. Every write lands there. `.agentfs/` and `.cairn/` are covered by empty
 * read-only folders, and the `.env*` files are removed from the view after the pivot (whiteouts in the upper
 * layer, which the capture knows to skip). It pivots into the new root, so nothing else of the machine (the
 * home folder, SSH keys, the Cairn home) exists.
 *
 * The command runs in a user and mount namespace nested in these (every mount the script made is locked
 * there), where the upper layer's own mount point, `/.cairn-upper`, is covered. When the command ends, the
 * script lists, for each folder of the upper layer, what the merged view holds in it (fd 5, NUL-separated: a
 * folder as `/path`, then its names): a folder the agent removed and made again hides the working tree's
 * entries in it, which only the merged view shows.
 *
 * Protocol on fd 3: setup errors as text, then `ready`, or `missing` when the program is not found. Fd 4 is a
 * pipe Cairn never writes to: when it ends (Cairn exited, even killed), every process of the view is killed.
 * Fd 6 brings the project paths to remove (one a line): Cairn looks for `.env*` files while the mounts are
 * made, and the script reads the list only when it needs it, just before the pivot.
 * Inputs (environment): CAIRN_VIEW_ROOT, CAIRN_VIEW_NEWROOT, CAIRN_VIEW_UPPER, CAIRN_VIEW_WORK,
 * CAIRN_VIEW_LAYER (the proposal's layer, or empty), CAIRN_VIEW_MODE (overlay|copy), CAIRN_VIEW_COPY,
 * CAIRN_VIEW_RO (folders to bind
 * read-only, one a line), CAIRN_VIEW_HOME (the user's home folder), CAIRN_VIEW_HOME_BINDS (home-relative
 * entries to bind read-only, one a line), CAIRN_VIEW_AS_ROOT (1 when Cairn runs as root: only then can the
 * password hashes and SSH host keys be read, so only then are they covered), CAIRN_VIEW_SIZE (tmpfs size), CAIRN_VIEW_CWD (where the command
 * starts), CAIRN_VIEW_PATH, CAIRN_VIEW_PROGRAM; the positional arguments are the command (`env -i …`).
 */
export const VIEW_SCRIPT = String.raw`set -e
exec 7>&2 2>&3
R="$CAIRN_VIEW_ROOT"; N="$CAIRN_VIEW_NEWROOT"
mount -o bind,ro "$N" "$N"
printf '%s\n' "$CAIRN_VIEW_RO" | while IFS= read -r d; do if [ -n "$d" ]; then mount -o bind,ro "$d" "$N$d"; fi; done
if [ "$CAIRN_VIEW_AS_ROOT" = 1 ]; then
  for f in /etc/shadow /etc/gshadow /etc/shadow- /etc/gshadow-; do if [ -f "$N$f" ]; then mount --bind /dev/null "$N$f"; fi; done
  if [ -d "$N/etc/ssh" ]; then mount -t tmpfs -o ro,size=4k cairn-hidden "$N/etc/ssh"; fi
fi
for f in null zero full random urandom tty; do mount --bind "/dev/$f" "$N/dev/$f"; done
mount -t tmpfs -o "size=$CAIRN_VIEW_SIZE,mode=1777" cairn-shm "$N/dev/shm"
if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 cairn-pts "$N/dev/pts" 2>/dev/null; then mount --bind "$N/dev/pts/ptmx" "$N/dev/ptmx"; fi
mount -t proc proc "$N/proc"
mount -t tmpfs -o "size=$CAIRN_VIEW_SIZE,mode=1777" cairn-tmp "$N/tmp"
mkdir -p "$N$R" "$N/tmp/home"
printf '%s\n' "$CAIRN_VIEW_HOME_BINDS" | while IFS= read -r h; do if [ -n "$h" ]; then
  if [ -d "$CAIRN_VIEW_HOME/$h" ]; then mkdir -p "$N/tmp/home/$h"; else mkdir -p "$(dirname "$N/tmp/home/$h")"; : > "$N/tmp/home/$h"; fi
  mount -o bind,ro "$CAIRN_VIEW_HOME/$h" "$N/tmp/home/$h"
fi; done
if [ "$CAIRN_VIEW_MODE" = overlay ]; then
  L="$R"; if [ -n "$CAIRN_VIEW_LAYER" ]; then L="$CAIRN_VIEW_LAYER:$R"; fi
  O="lowerdir=$L,upperdir=$CAIRN_VIEW_UPPER,workdir=$CAIRN_VIEW_WORK"
  mount -t overlay -o "userxattr,$O" cairn-view "$N$R" 2>/dev/null || mount -t overlay -o "$O" cairn-view "$N$R"
  mount -o bind,ro "$CAIRN_VIEW_UPPER" "$N/.cairn-upper"
else
  mount --bind "$CAIRN_VIEW_COPY" "$N$R"
fi
for d in .agentfs .cairn; do if [ -d "$N$R/$d" ]; then mount -t tmpfs -o ro,size=4k cairn-hidden "$N$R/$d"; fi; done
REMOVE=""
while IFS= read -r p || [ -n "$p" ]; do REMOVE="$REMOVE$p
"; done <&6
exec 6<&-
cd "$N"
pivot_root . .old
umount -l /.old
cd "$R"
printf '%s' "$REMOVE" | while IFS= read -r p; do if [ -n "$p" ]; then rm -rf "./$p" 2>/dev/null || true; fi; done
cd "$CAIRN_VIEW_CWD" 2>/dev/null || cd "$R"
if ! PATH="$CAIRN_VIEW_PATH" command -v "$CAIRN_VIEW_PROGRAM" >/dev/null 2>&1; then echo missing >&3; exit 127; fi
( while read -r _; do :; done; kill -9 -1 ) <&4 >/dev/null 2>&1 3>&- 5>&- 7>&- &
set +e
unshare --user --map-root-user --mount sh -c 'if [ -d /.cairn-upper ]; then mount -t tmpfs -o ro,size=4k cairn-hidden /.cairn-upper; fi; echo ready >&3; exec 3>&- 5>&- 2>&7 7>&-; exec "$@"' cairn-view "$@" 4<&-
code=$?
exec 7>&-
if [ -d /.cairn-upper ]; then
  cd /.cairn-upper && find . -type d -exec sh -c 'for d; do p="${'$'}{d#.}"; if [ -d "$0$p" ]; then printf "/%s\0" "${'$'}{p#/}"; find "$0$p" -mindepth 1 -maxdepth 1 -printf "%f\0"; fi; done' "$R" {} + >&5 2>/dev/null || true
fi
exit "$code"
`;
