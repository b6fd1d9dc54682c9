# redis-server (Debian): the Redis mailbox tests of the typed eval API (EvalLoop workers)
# start their own server on a free loopback port.
apt_install redis-server redis-server
