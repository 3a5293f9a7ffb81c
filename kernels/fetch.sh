#!/usr/bin/env bash
# fetch.sh: download the Debian cloud kernels of the matrix (and the static shells
# the guests use) into the cache, extracting only the vmlinuz.
#
#   kernels/fetch.sh [CACHE_DIR]
#
# Each testdata/kernels/*.toml names a Debian suite (suite = "..."). For every suite
# the script keeps a private APT state under CACHE_DIR/apt/SUITE, with one sources
# entry on the mirror this machine already uses (read from /etc/apt, never changed),
# resolves linux-image-cloud-amd64 to the versioned kernel package of that suite, and
# leaves CACHE_DIR/SUITE/vmlinuz and CACHE_DIR/SUITE/version. From 6.19 on the image
# package is a stub that depends on linux-binary-*, which then holds the kernel.
#
# A suite that cannot be fetched is an error naming the suite; nothing is skipped.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${1:-${STOCKADE_KERNEL_CACHE:-$repo/.cache/kernels}}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
trap 'rm -rf "$cache"/tmp.*' EXIT

log() { printf 'fetch: %s\n' "$*" >&2; }
die() { printf 'fetch: error: %s\n' "$*" >&2; exit 1; }

# The machine's own Debian mirrors, from its APT sources (one-line or deb822).
sources_uris() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		case $f in
		*.sources) sed -nE 's/^URIs:[[:space:]]*//p' "$f" | tr ' ' '\n' ;;
		*) sed -nE 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' "$f" ;;
		esac
	done
}
mirror=${STOCKADE_DEBIAN_MIRROR:-$(sources_uris | grep -E '/debian/?$' | head -1 || true)}
security=${STOCKADE_DEBIAN_SECURITY_MIRROR:-$(sources_uris | grep -E '/debian-security/?$' | head -1 || true)}
[ -n "$mirror" ] || die "no Debian mirror in /etc/apt/sources.list*; set STOCKADE_DEBIAN_MIRROR"
mirror=${mirror%/}
[ -n "$security" ] || security=${mirror%/debian}/debian-security
security=${security%/}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "missing $keyring (apt-get install debian-archive-keyring)"

# apt_for SUITE: write a private APT config for one suite and print its path.
apt_for() {
	local suite=$1 root="$cache/apt/$1" uri=$mirror
	case $suite in *-security) uri=$security ;; esac
	mkdir -p "$root/lists/partial" "$root/archives/partial" "$root/parts" "$root/prefs"
	: >"$root/status"
	echo "deb [signed-by=$keyring] $uri $suite main" >"$root/sources.list"
	cat >"$root/apt.conf" <<EOF
Dir::State "$root";
Dir::State::lists "$root/lists";
Dir::State::status "$root/status";
Dir::Cache "$root";
Dir::Cache::archives "$root/archives";
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Dir::Etc::SourceList "$root/sources.list";
Dir::Etc::SourceParts "$root/parts";
Dir::Etc::PreferencesParts "$root/prefs";
Dir::Etc::Preferences "$root/prefs/none";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
Acquire::Languages "none";
Acquire::IndexTargets::deb::Contents-deb::DefaultEnabled "false";
Acquire::Retries "3";
APT::Sandbox::User "root";
EOF
	echo "$root/apt.conf"
}

# depends_of CONF PKG: the package names PKG depends on (first alternative each).
depends_of() {
	APT_CONFIG=$1 apt-cache show --no-all-versions "$2" |
		sed -nE 's/^(Pre-)?Depends:[[:space:]]*//p' | tr ',' '\n' |
		sed -E 's/^[[:space:]]*//; s/[[:space:]|(].*//' | grep -v '^$' || true
}

# kernel_file DEB: the path of the kernel image inside a kernel package, if any
# (./boot/vmlinuz-VERSION, or ./usr/lib/modules/VERSION/vmlinuz from 6.19 on).
kernel_file() {
	dpkg-deb --fsys-tarfile "$1" | tar -t |
		grep -E '^\./(boot/vmlinuz-[^/]+|usr/lib/modules/[^/]+/vmlinuz)$' | head -1 || true
}

# download CONF DIR PKG: apt-get download PKG into DIR and print the .deb's path.
download() {
	(cd "$2" && APT_CONFIG=$1 apt-get download -qq "$3" >/dev/null) || die "apt-get download $3 failed"
	ls "$2"/"${3}"_*.deb
}

# fetch_kernel SUITE [SERIES]: leave $cache/KEY/vmlinuz and version, where KEY is
# SUITE, or SUITE-SERIES when the matrix pins a kernel series (say 6.16) that is
# older than what the suite's metapackage points at but still in its index.
fetch_kernel() {
	local suite=$1 series=${2:-} key conf out img deb dep tmp vmlinuz ver
	key=$suite${series:+-$series}
	out=$cache/$key
	if [ -s "$out/vmlinuz" ] && [ -s "$out/version" ] && [ -z "${STOCKADE_KERNEL_REFRESH:-}" ]; then
		log "$key: cached $(cat "$out/version")"
		return 0
	fi
	conf=$(apt_for "$suite")
	if [ -z "$(find "$cache/apt/$suite/lists" -name '*_Packages*' -mmin -720 2>/dev/null)" ]; then
		log "$suite: apt-get update ($(sed 's/.*] //' "$cache/apt/$suite/sources.list"))"
		APT_CONFIG=$conf apt-get update -qq -o APT::Update::Error-Mode=any >/dev/null ||
			die "$suite: apt-get update failed"
	fi
	if [ -z "$series" ]; then
		# linux-image-cloud-amd64 -> linux-image-VERSION-cloud-amd64 (signed or not).
		img=$(depends_of "$conf" linux-image-cloud-amd64 | grep -E '^linux-image-[0-9]' | head -1)
		[ -n "$img" ] || die "$key: linux-image-cloud-amd64 depends on no linux-image-<version> package"
	else
		img=$(APT_CONFIG=$conf apt-cache search --names-only "^linux-image-${series//./\\.}[.-].*cloud-amd64\$" |
			cut -d' ' -f1 | sort -V | tail -1)
		[ -n "$img" ] || die "$key: no linux-image-$series*-cloud-amd64 in $suite"
	fi
	tmp=$(mktemp -d "$cache/tmp.XXXXXX")
	deb=$(download "$conf" "$tmp" "$img")
	vmlinuz=$(kernel_file "$deb")
	if [ -z "$vmlinuz" ]; then
		# 6.19+: the image package is a stub; the kernel is in linux-binary-*.
		dep=$(depends_of "$conf" "$img" | grep -E '^linux-binary-' | head -1)
		[ -n "$dep" ] || die "$key: $img has no kernel image and no linux-binary-* dependency"
		log "$key: $img is a stub, kernel in $dep"
		deb=$(download "$conf" "$tmp" "$dep")
		vmlinuz=$(kernel_file "$deb")
		[ -n "$vmlinuz" ] || die "$key: $dep has no kernel image"
	fi
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "$vmlinuz"
	case $vmlinuz in
	./boot/*) ver=${vmlinuz#./boot/vmlinuz-} ;;
	*) ver=${vmlinuz#./usr/lib/modules/} ver=${ver%/vmlinuz} ;;
	esac
	mkdir -p "$out"
	mv "$tmp/$vmlinuz" "$out/vmlinuz"
	echo "$ver" >"$out/version"
	rm -rf "$tmp"
	log "$key: $ver ($(basename "$deb"), $(du -h "$out/vmlinuz" | cut -f1))"
}

# fetch_static: busybox and bash, statically linked, from this machine's own suite
# (the guests have no libc); kept as CACHE_DIR/static/{busybox,bash}.
fetch_static() {
	local out="$cache/static" tmp pkg
	if [ -x "$out/busybox" ] && [ -x "$out/bash" ]; then
		return 0
	fi
	mkdir -p "$out"
	tmp=$(mktemp -d "$cache/tmp.XXXXXX")
	for pkg in busybox-static bash-static; do
		(cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "$pkg" >/dev/null) ||
			die "apt-get download $pkg failed (run apt-get update first?)"
	done
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/x"; done
	install -m 0755 "$tmp/x/bin/busybox" "$out/busybox"
	install -m 0755 "$tmp/x/bin/bash-static" "$out/bash"
	rm -rf "$tmp"
	log "static: busybox and bash in $out"
}

# toml_string FILE KEY: the value of a top-level `KEY = "..."` line.
toml_string() { sed -nE "s/^$2[[:space:]]*=[[:space:]]*\"([^\"]*)\".*/\\1/p" "$1" | head -1; }

kernels=()
for f in "$repo"/testdata/kernels/*.toml; do
	[ -e "$f" ] || die "no testdata/kernels/*.toml"
	suite=$(toml_string "$f" suite)
	[ -n "$suite" ] || die "$f: no suite = \"...\""
	kernels+=("$suite $(toml_string "$f" series)")
done
printf '%s\n' "${kernels[@]}" | sort -u | while read -r suite series; do
	fetch_kernel "$suite" "$series"
done
fetch_static
