MASTER_IP=$(ifconfig | grep -o 'inet [0-9]\+\.[0-9]\+\.[0-9]\+\.[0-9]\+' | grep -v '127.0.0.1' | head -n 1 | awk '{print $2}')
xinference-supervisor -H "$MASTER_IP" --log-level=debug
MASTER_IP=$1
xinference-worker -e http://"$MASTER_IP":9997 --log-level=debug
