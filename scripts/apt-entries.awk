# apt-entries.awk: print deb822 stanzas derived from the machine's bookworm
# `deb` entries (same URIs and keyring), so that what vhca adds uses the
# mirror apt already uses.  Input: the apt source files, one-line (*.list)
# and deb822 (*.sources).  Entries whose types already include deb-src,
# disabled stanzas (Enabled: no) and suites other than bookworm* are left
# out, and so is bookworm-backports (pinned low for QEMU 10's meson: its
# newer qemu source must never be what `apt-get source qemu` fetches);
# only the main component is asked for (qemu and linux are in main).
#
#   awk -f apt-entries.awk FILES...          deb-src stanzas of the same
#       suites, for `apt-get source qemu` (scripts/deps.sh)
#   awk -v derive="SUITE..." -f apt-entries.awk FILES...   deb stanzas of
#       those suites from the entries of suite `bookworm` itself (not
#       -security, -updates: other archives or paths): "trixie
#       trixie-backports" for the guest kernels 6.12 and 7.3
#       (scripts/apt-trixie.sh), "bookworm-backports" for QEMU 10's meson
#       (scripts/deps-qemu10.sh)

function emit(uris, suites, comps, signed,   n, i, s, out) {
	if (comps !~ /(^| )main( |$)/)
		return
	n = split(suites, s, " ")
	out = ""
	for (i = 1; i <= n; i++)
		if (derive != "" && s[i] == "bookworm")
			out = derive
		else if (derive == "" && s[i] ~ /^bookworm/ && s[i] !~ /-backports$/)
			out = out (out == "" ? "" : " ") s[i]
	if (out == "")
		return
	key = uris "|" out
	if (key in seen)
		return
	seen[key] = 1
	if (printed++)
		print ""
	print "Types: " (derive == "" ? "deb-src" : "deb")
	print "URIs: " uris
	print "Suites: " out
	print "Components: main"
	if (signed != "")
		print "Signed-By: " signed
}

function flush_stanza() {
	if (types ~ /(^| )deb( |$)/ && types !~ /deb-src/ && tolower(enabled) != "no")
		emit(uris, suites, comps, signed)
	types = uris = suites = comps = signed = enabled = ""
	field = ""
}

FNR == 1 { if (stanza_file) flush_stanza(); stanza_file = FILENAME ~ /\.sources$/ }

# One-line format: deb [opt=val ...] URI SUITE COMPONENT...
!stanza_file && /^[ \t]*deb[ \t]/ {
	line = $0
	sub(/#.*/, "", line)
	opts = ""
	if (match(line, /\[[^]]*\]/)) {
		opts = substr(line, RSTART + 1, RLENGTH - 2)
		line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
	}
	n = split(line, w, /[ \t]+/)
	first = (w[1] == "") ? 2 : 1
	signed = ""
	m = split(opts, o, /[ \t]+/)
	for (i = 1; i <= m; i++)
		if (o[i] ~ /^signed-by=/)
			signed = substr(o[i], 11)
	c = ""
	for (i = first + 3; i <= n; i++)
		c = c " " w[i]
	emit(w[first + 1], w[first + 2], c, signed)
	signed = ""
	next
}

stanza_file && /^[ \t]*$/ { flush_stanza(); next }
stanza_file && /^#/ { next }
# A continuation line (an inline Signed-By key block) belongs to the field.
stanza_file && /^[ \t]/ { if (field == "signed-by") signed = signed "\n" $0; next }
stanza_file {
	field = tolower(substr($0, 1, index($0, ":") - 1))
	value = substr($0, index($0, ":") + 1)
	gsub(/^[ \t]+|[ \t]+$/, "", value)
	if (field == "types") types = value
	else if (field == "uris") uris = value
	else if (field == "suites") suites = value
	else if (field == "components") comps = value
	else if (field == "signed-by") signed = value
	else if (field == "enabled") enabled = value
}

END { if (stanza_file) flush_stanza() }
