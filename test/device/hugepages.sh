# shellcheck shell=bash
# test/device/hugepages.sh, sourced by the device scripts before they start
# a cluster: reserve_huge_pages GB reserves huge
# pages for shared_buffers of up to $1 GB (PostgreSQL's huge_pages = try
# then uses them), as PostgreSQL's documentation recommends for large
# shared_buffers.  On the H200 with 16GB of shared buffers, backends
# pinning pages for the GPU spent 1.3 core-us a page with huge pages and 2.1
# without, and parallel workers took 30-40 ms longer to exit (their page
# tables of the 4 kB shared mapping): README "Huge pages".
# PGSTROM_HUGE_PAGES=off leaves the machine as it is.
# Needs: root to write /proc/sys/vm/nr_hugepages (otherwise it reports what
# is reserved and changes nothing).  Takes a second, or longer while the
# kernel gathers free 2 MB pages.
reserve_huge_pages() {
	local gb=$1 pages
	[ "${PGSTROM_HUGE_PAGES:-on}" = off ] && { echo "huge pages: left as they are (PGSTROM_HUGE_PAGES=off)"; return 0; }
	# shared_buffers plus PostgreSQL's other shared memory (about 6%), 2 MB pages
	pages=$(( gb * 512 * 106 / 100 + 128 ))
	if [ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null || echo 0)" -lt "$pages" ]; then
		echo "$pages" > /proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
	echo "huge pages: $(awk '/HugePages_Total/ {t=$2} /Hugepagesize/ {s=$2} END {print t " of " s " kB"}' /proc/meminfo) reserved for shared_buffers up to ${gb}GB"
}
