#!/usr/bin/env sh
# Writes the secrets docker-compose.yml reads into DIR (default ./secrets), one file each,
# from the CSPRNG: the database and ClickHouse passwords together with the URLs that carry
# them, so each pair cannot disagree. Files already there are kept (PostgreSQL keeps the
# password it was created with), so running it again only fills in what is missing. Without
# a certificate it writes a self-signed one for PUBLIC_HOST, to be replaced by a real one
# (docs/ops-guide.md, "TLS certificate"). Needs openssl.
set -eu
dir="${1:-secrets}"
host="${PUBLIC_HOST:-localhost}"
umask 077
mkdir -p "$dir"
# The directory keeps other users of this host out; the files must be readable by the
# containers' own users (postgres, clickhouse, haproxy, node), which bind mounts keep.
chmod 0700 "$dir"

put() {
  [ -e "$dir/$1" ] && return 0
  printf '%s\n' "$2" >"$dir/$1"
  chmod 0444 "$dir/$1"
}
hex() { openssl rand -hex "$1"; }

[ -e "$dir/postgres_password" ] || put postgres_password "$(hex 24)"
put database_url "postgres://court_records:$(cat "$dir/postgres_password")@postgres:5432/court_records"
[ -e "$dir/clickhouse_password" ] || put clickhouse_password "$(hex 24)"
put clickhouse_url "http://court_records:$(cat "$dir/clickhouse_password")@clickhouse:8123/court_records"
put meili_master_key "$(hex 32)"
put key_hash_secret "$(hex 32)"
put document_url_secret "$(hex 32)"
put admin_token "$(hex 24)"
put metrics_token "$(hex 24)"
put temporal_codec_keys "k1:$(openssl rand -base64 32)"
if [ ! -e "$dir/tls.pem" ]; then
  echo "no $dir/tls.pem: writing a self-signed certificate for $host (browsers and clients will not trust it)" >&2
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=$host" -addext "subjectAltName=DNS:$host" \
    -keyout "$dir/tls.key" -out "$dir/tls.crt" 2>/dev/null
  cat "$dir/tls.crt" "$dir/tls.key" >"$dir/tls.pem"
  rm "$dir/tls.crt" "$dir/tls.key"
  chmod 0444 "$dir/tls.pem"
fi
