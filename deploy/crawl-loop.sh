#!/bin/sh
# The crawl service: `docslice index` now, then every CRAWL_EVERY seconds (default a day). A failed run (the
# database not up yet, the site down) is tried again after 30 s, then 60, 120, … up to CRAWL_RETRY_MAX
# (default an hour), not a day later; a good run goes back to the schedule.
set -u
every=${CRAWL_EVERY:-86400}
most=${CRAWL_RETRY_MAX:-3600}
delay=30
while true; do
    if docslice index "$@"; then
        delay=30
        sleep "$every"
    else
        echo "docslice-crawl: the run failed; trying again in ${delay} s" >&2
        sleep "$delay"
        delay=$((delay * 2))
        [ "$delay" -gt "$most" ] && delay=$most
    fi
done
