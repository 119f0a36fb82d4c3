#!/bin/bash
# Host discovery for elastic Horovod: one "host:slots" line per host that may run workers now.
# The scheduler keeps hosts.txt up to date (hosts join and leave).
cat "$(dirname "$0")/hosts.txt"
