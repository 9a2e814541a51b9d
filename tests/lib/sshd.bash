# An OpenSSH server of the tests' own on 127.0.0.1, never the system's service:
#   start_sshd       sets SSH_DEVICE (ssh://user@127.0.0.1:PORT), SSH_CONFIG (a client
#                    configuration with the test's key and the server's host key) and
#                    SSH_USER; skips when sshd or the test user is missing
#   stop_sshd        stops it and removes its directory (call it from teardown)
# sshd runs as an unprivileged user with a host key and a user key made here. An sshd
# not started by root can log in only the user it runs as: when the tests run as root,
# that is the user cuda-xcc-test (scripts/setup.sh creates it), else the current user.

start_sshd() {
	local d sshd port i
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	[ -x "$sshd" ] || skip "sshd is not installed (Debian package openssh-server)"
	need ssh "the OpenSSH client (openssh-client)"
	need ssh-keygen "makes the test's keys (openssh-client)"
	need python3 "finds a free port"
	local as_user=()
	if [ "$(id -u)" = 0 ]; then
		SSH_USER=${XCC_SSH_TEST_USER:-cuda-xcc-test}
		id "$SSH_USER" >/dev/null 2>&1 ||
			skip "the tests run as root and start sshd as the user $SSH_USER, who does not exist (scripts/setup.sh makes it: useradd --create-home --shell /bin/sh $SSH_USER)"
		need setpriv "runs sshd as $SSH_USER (util-linux)"
		as_user=(setpriv --reuid="$SSH_USER" --regid="$SSH_USER" --init-groups)
	else
		SSH_USER=$(id -un)
	fi
	# Its own directory under /tmp: the sshd user must reach it, and bats's are private.
	d=$(mktemp -d "${TMPDIR:-/tmp}/cuda-xcc-sshd.XXXXXX")
	SSHD_DIR=$d
	chmod 755 "$d"
	mkdir -p "$d/server" "$d/client"
	ssh-keygen -q -t ed25519 -N '' -C test-host -f "$d/server/host_key"
	ssh-keygen -q -t ed25519 -N '' -C test-user -f "$d/client/user_key"
	cp "$d/client/user_key.pub" "$d/server/authorized_keys"
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	cat > "$d/server/sshd_config" <<EOC
ListenAddress 127.0.0.1
Port $port
HostKey $d/server/host_key
AuthorizedKeysFile $d/server/authorized_keys
AllowUsers $SSH_USER
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile $d/server/sshd.pid
EOC
	[ "$(id -u)" != 0 ] || chown -R "$SSH_USER" "$d/server"

	"${as_user[@]}" "$sshd" -f "$d/server/sshd_config" -E "$d/server/sshd.log"
	for i in $(seq 100); do
		[ -s "$d/server/sshd.pid" ] && break
		sleep 0.05
	done
	[ -s "$d/server/sshd.pid" ] || { cat "$d/server/sshd.log" >&2; return 1; }
	SSHD_PID=$(cat "$d/server/sshd.pid")
	echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$d/server/host_key.pub")" > "$d/client/known_hosts"
	SSH_CONFIG=$d/client/ssh_config
	cat > "$SSH_CONFIG" <<EOC
Host *
	IdentityFile $d/client/user_key
	IdentitiesOnly yes
	UserKnownHostsFile $d/client/known_hosts
	StrictHostKeyChecking yes
	LogLevel ERROR
EOC
	SSH_DEVICE="ssh://$SSH_USER@127.0.0.1:$port"
	export SSH_DEVICE SSH_CONFIG SSH_USER SSHD_PID SSHD_DIR
}

stop_sshd() {
	if [ -n "${SSHD_PID:-}" ]; then
		kill "$SSHD_PID" 2>/dev/null || true
		SSHD_PID=
	fi
	if [ -n "${SSHD_DIR:-}" ]; then
		rm -rf "$SSHD_DIR"
		SSHD_DIR=
	fi
}
