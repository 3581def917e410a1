# Fauxth in a container. Build and run it with
#   docker build -t fauxth .
#   docker run --rm -p 127.0.0.1:9099:9099 fauxth
# Seeds and snapshots live under /data: mount a folder there and name the files after `serve`, e.g.
#   docker run --rm -p 127.0.0.1:9099:9099 -v "$PWD:/data" fauxth \
#     serve --host 0.0.0.0 --allow-remote --seed /data/seed.json --snapshot /data/state.sqlite
# Tests/release/test_dockerfile.py keeps this file honest without a Docker engine: it checks that the build
# stage runs scripts/release, that the runtime stage's packages hold every library the binary links, and runs
# the runtime stage's steps, CMD and HEALTHCHECK in a Debian 12 root of its own.

# The Swift the project is tested with, on Debian 12: the runtime stage below is the same Debian, so the
# binary meets the glibc and libsqlite3 it was linked against.
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY . .
RUN scripts/release && cp .build/release-artifacts/fauxth-*-linux-"$(uname -m)" /fauxth

FROM debian:bookworm-slim
# What the binary links besides glibc (readelf -d): SQLite, zlib (the HTTP client that calls hooks), and the
# C++ runtime that the BoringSSL copies and the statically linked Swift runtime use. CA certificates, so an
# https:// hook's certificate can be checked. No curl: the health check is the binary's own `fauxth health`.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 zlib1g libstdc++6 libgcc-s1 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
# Not root. uid 1000 is the usual first user on a Linux host, so a mounted folder of theirs is writable for
# --snapshot; otherwise run with --user "$(id -u)". /data is not a VOLUME: that would leave an anonymous
# volume behind on every run that mounts nothing.
RUN useradd --uid 1000 --user-group --home-dir /data --create-home fauxth
COPY --from=build /fauxth /usr/local/bin/fauxth
USER fauxth
WORKDIR /data
EXPOSE 9099
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["fauxth", "health"]
# SIGTERM (docker stop) saves --snapshot and exits 0; Fauxth runs as PID 1 and handles it itself.
STOPSIGNAL SIGTERM
ENTRYPOINT ["fauxth"]
# Inside a container the emulator must listen on every interface for -p to reach it, which Fauxth refuses
# without --allow-remote. Publish it on the host's loopback (-p 127.0.0.1:9099:9099) to keep it private there.
CMD ["serve", "--host", "0.0.0.0", "--allow-remote"]
