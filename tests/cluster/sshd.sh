# sshd.sh - an sshd of our own for the cluster test and benchmark (sourced,
# not run): start_sshd DIR starts sshd -D on a free port of 127.0.0.1 with
# a throwaway host key, client key and configuration in DIR, waits until
# the key logs in, and sets SSH (the ssh command that logs in) and
# SSHD_PID.  stop_sshd stops it.  Returns 1, saying why, when it cannot.
start_sshd() {
	local d=$1 port sshd i
	mkdir -p "$d" && d=$(cd "$d" && pwd) || return 1
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$d/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$d/id" ||
		{ echo "ssh-keygen failed" >&2; return 1; }
	cp "$d/id.pub" "$d/authorized_keys" && chmod 600 "$d/authorized_keys"
	cat >"$d/sshd_config" <<CONF
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_key
AuthorizedKeysFile $d/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile $d/sshd.pid
MaxStartups 100
MaxSessions 100
Subsystem sftp internal-sftp
CONF
	[ "$(id -u)" = 0 ] && mkdir -p /run/sshd # privilege separation
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	"$sshd" -D -f "$d/sshd_config" -E "$d/sshd.log" &
	SSHD_PID=$!
	SSH="ssh -p $port -i $d/id -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
	for i in $(seq 50); do
		$SSH 127.0.0.1 true 2>/dev/null && return 0
		sleep 0.2
	done
	echo "cannot log in to our sshd on port $port: $(tail -5 "$d/sshd.log")" >&2
	return 1
}

stop_sshd() {
	[ -n "${SSHD_PID:-}" ] || return 0
	kill "$SSHD_PID" 2>/dev/null
	wait "$SSHD_PID" 2>/dev/null
	SSHD_PID=
}
