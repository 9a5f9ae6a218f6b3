/* oracle.c: compresses each input file named on the command line as Java's
 * Deflater does for GZIPOutputStream at Kafka's default gzip level: the
 * system zlib's deflate with level Z_DEFAULT_COMPRESSION (6), raw deflate
 * (windowBits -15, Deflater's nowrap), memLevel 8 (DEF_MEM_LEVEL), the
 * default strategy, all input at once with Z_FINISH; writes the raw deflate
 * stream to <file>.deflate. With -pack OUT first, it writes instead one
 * file OUT holding, for each input in order, a 4-byte big-endian stream
 * length and the stream. Only for making the golden streams; not built by
 * Go. Build:
 *   gcc -O2 -o /tmp/zliboracle oracle.c -lz
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int main(int argc, char **argv) {
	FILE *pack = NULL;
	int first = 1;
	fprintf(stderr, "zlib %s\n", zlibVersion());
	if (argc > 2 && strcmp(argv[1], "-pack") == 0) {
		pack = fopen(argv[2], "wb");
		if (!pack) { perror(argv[2]); return 1; }
		first = 3;
	}
	static unsigned char in[1 << 22];
	for (int i = first; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) { perror(argv[i]); return 1; }
		size_t n = fread(in, 1, sizeof in, f);
		fclose(f);
		z_stream z;
		memset(&z, 0, sizeof z);
		if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) { fprintf(stderr, "init\n"); return 1; }
		size_t cap = deflateBound(&z, n) + 64;
		unsigned char *out = malloc(cap);
		z.next_in = in; z.avail_in = (uInt)n;
		z.next_out = out; z.avail_out = (uInt)cap;
		if (deflate(&z, Z_FINISH) != Z_STREAM_END) { fprintf(stderr, "%s: deflate failed\n", argv[i]); return 1; }
		size_t m = z.total_out;
		deflateEnd(&z);
		if (pack) {
			unsigned char len[4] = {m >> 24, m >> 16, m >> 8, m};
			if (fwrite(len, 1, 4, pack) != 4 || fwrite(out, 1, m, pack) != m) { perror("pack"); return 1; }
		} else {
			char name[4096];
			snprintf(name, sizeof name, "%s.deflate", argv[i]);
			FILE *g = fopen(name, "wb");
			if (!g || fwrite(out, 1, m, g) != m || fclose(g)) { perror(name); return 1; }
		}
		printf("%s %zu -> %zu\n", argv[i], n, m);
		free(out);
	}
	if (pack && fclose(pack)) { perror("pack"); return 1; }
	return 0;
}
