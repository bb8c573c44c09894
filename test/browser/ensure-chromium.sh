#!/bin/sh
# The browser suite drives Debian's Chromium (never a browser a test tool downloads). Installs the
# `chromium` package when /usr/bin/chromium is missing; needs root (CI machines run as root) and
# Debian's package archive. Prints the version it will use.
set -e
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "ensure-chromium: /usr/bin/chromium is missing; install Debian's chromium package (as root: apt-get install chromium)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
/usr/bin/chromium --version
