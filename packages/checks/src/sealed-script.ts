/**
 * The shell script that seals a check, run as PID 1 of fresh mount, pid and network namespaces in a fresh user
 * namespace (`unshare --user --map-root-user unshare --mount --net --pid --fork --kill-child`: the network
 * namespace is made once the user namespace maps its root, so the loopback's sysfs files belong to that root
 * and the script can bring the loopback up by writing its flags, with no `ip` needed; `ip` or `ifconfig` where
 * sysfs cannot be mounted). The loopback is the only interface: 127.0.0.1 and ::1 work, every other address
 * has no route. It fills the new root that
 * `layOutRoot` laid out (itself bound read-only): the system's folders bound read-only, a few device nodes, a
 * fresh /proc, /tmp and /dev/shm, and the project at its own path — an overlay of the proposal's files (upper
 * lower layer) on the working tree (lower), with a tmpfs upper that vanishes with the namespace (whiteouts in
 * user xattrs, so a folder of the working tree can be removed; kernels before 5.11 mount without), or, in
 * copy mode, a materialized copy bound there. `.git` is bound read-only, `.agentfs/` and `.cairn/` are covered
 * by empty read-only folders, `.env*` files and the proposal's deletions are removed from the view (after the
 * pivot, so no link can lead out). It pivots into the new root, so nothing else of the machine (the home
 * folder, SSH keys, the Cairn home) exists, and runs the command in a user and mount namespace nested in
 * these, where every mount the script made is locked: the command cannot unmount what hides a file nor make a
 * read-only folder writable. When the command ends, PID 1 exits and the kernel kills whatever it left behind.
 * Each line that runs a program costs a few milliseconds, so the script runs as few as it can.
 *
 * Protocol on fd 3: setup errors as text, `loopback-down` when no way to bring the loopback up worked, then
 * `ready`, or `missing` when the program is not found. Fd 4 is
 * a pipe Cairn never writes to: when it ends (Cairn exited, even killed), every process of the check is killed.
 * Without it, `unshare` (its parent gone) would keep the check running past any timeout.
 * Inputs (environment): CAIRN_SEAL_ROOT, CAIRN_SEAL_SCRATCH, CAIRN_SEAL_NEWROOT, CAIRN_SEAL_PROPOSAL,
 * CAIRN_SEAL_VIEW (overlay|copy), CAIRN_SEAL_COPY, CAIRN_SEAL_REMOVE (a file of project paths to remove, one
 * a line), CAIRN_SEAL_RO (the folders to bind read-only, one a line), CAIRN_SEAL_SIZE (tmpfs size),
 * CAIRN_SEAL_PIDS (the pid namespace's pid_max), CAIRN_SEAL_HOSTS (a hosts file to bind over /etc/hosts, or
 * empty), CAIRN_SEAL_PATH, CAIRN_SEAL_PROGRAM; the positional
 * arguments are the command (`env -i …`).
 */
export const SEAL_SCRIPT = String.raw`set -e
exec 2>&3
R="$CAIRN_SEAL_ROOT"; S="$CAIRN_SEAL_SCRATCH"; N="$CAIRN_SEAL_NEWROOT"
mount -t tmpfs -o "size=$CAIRN_SEAL_SIZE,mode=0700" cairn-scratch "$S"
mkdir "$S/upper" "$S/work" "$S/sys"
L="$S/sys/class/net/lo/flags"
if mount -t sysfs cairn-sys "$S/sys" 2>/dev/null && read -r F 2>/dev/null < "$L" && echo "$(( F | 1 ))" 2>/dev/null > "$L"; then :
elif ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null; then :
else echo loopback-down >&3; fi
mount -o bind,ro "$N" "$N"
printf '%s\n' "$CAIRN_SEAL_RO" | while IFS= read -r d; do if [ -n "$d" ]; then mount -o bind,ro "$d" "$N$d"; fi; done
for f in /etc/shadow /etc/gshadow /etc/shadow- /etc/gshadow-; do if [ -f "$N$f" ]; then mount --bind /dev/null "$N$f"; fi; done
if [ -n "$CAIRN_SEAL_HOSTS" ]; then mount --bind "$CAIRN_SEAL_HOSTS" "$N/etc/hosts"; fi
if [ -d "$N/etc/ssh" ]; then mount -t tmpfs -o ro,size=4k cairn-hidden "$N/etc/ssh"; fi
for f in null zero full random urandom tty; do mount --bind "/dev/$f" "$N/dev/$f"; done
mount -t tmpfs -o "size=$CAIRN_SEAL_SIZE,mode=1777" cairn-shm "$N/dev/shm"
mount -t proc proc "$N/proc"
echo "$CAIRN_SEAL_PIDS" > "$N/proc/sys/kernel/pid_max" 2>/dev/null || true
mount -t tmpfs -o "size=$CAIRN_SEAL_SIZE,mode=1777" cairn-tmp "$N/tmp"
mkdir -p "$N$R" "$N/tmp/home"
if [ "$CAIRN_SEAL_VIEW" = overlay ]; then
  O="lowerdir=$CAIRN_SEAL_PROPOSAL:$R,upperdir=$S/upper,workdir=$S/work"
  mount -t overlay -o "userxattr,$O" cairn-check "$N$R" 2>/dev/null || mount -t overlay -o "$O" cairn-check "$N$R"
else
  mount --bind "$CAIRN_SEAL_COPY" "$N$R"
fi
if [ -d "$R/.git" ] && [ ! -L "$R/.git" ]; then mount -o bind,ro "$R/.git" "$N$R/.git"; fi
for d in .agentfs .cairn; do if [ -d "$N$R/$d" ]; then mount -t tmpfs -o ro,size=4k cairn-hidden "$N$R/$d"; fi; done
REMOVE=""
while IFS= read -r p || [ -n "$p" ]; do REMOVE="$REMOVE$p
"; done < "$CAIRN_SEAL_REMOVE"
cd "$N"
pivot_root . .old
umount -l /.old
cd "$R"
printf '%s' "$REMOVE" | while IFS= read -r p; do if [ -n "$p" ]; then rm -rf "./$p" 2>/dev/null || true; fi; done
if ! PATH="$CAIRN_SEAL_PATH" command -v "$CAIRN_SEAL_PROGRAM" >/dev/null 2>&1; then echo missing >&3; exit 127; fi
( while read -r _; do :; done; kill -9 -1 ) <&4 >/dev/null 2>&1 3>&- &
set +e
unshare --user --map-root-user --mount sh -c 'echo ready >&3; exec 3>&- 2>&1; exec "$@"' cairn-check "$@" 4<&-
`;
