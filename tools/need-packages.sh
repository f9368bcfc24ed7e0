# need-packages.sh - sourced by tools/sanitize.sh and tools/fuzz.sh:
# need_packages PKG... installs the Debian packages that are missing, when
# running as root (CI is root); otherwise it names them and fails. Idempotent:
# nothing is fetched when everything is there.
need_packages() {
	missing=""
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "missing Debian packages:$missing (install them as root)" >&2
		return 1
	fi
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 || {
		apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends $missing >/dev/null
	}
}

# The project's own build dependencies, which every build here needs.
project_packages="meson ninja-build pkg-config gcc libncurses-dev libopenblas-dev libcmocka-dev"
