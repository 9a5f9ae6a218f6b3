/* oracle.c: compresses each input file named on the command line with the
 * system libsnappy's snappy_compress (the C binding of snappy::RawCompress,
 * which snappy-java's Snappy.compress calls for each block Kafka's
 * SnappyOutputStream writes) and writes the raw block to <file>.snappy.
 * With -pack OUT first, it writes instead one file OUT holding, for each
 * input in order, a 4-byte big-endian block length and the block. Only for
 * making the golden blocks; not built by Go. Build:
 *   gcc -O2 -o /tmp/snappyoracle oracle.c /usr/lib/x86_64-linux-gnu/libsnappy.so.1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From snappy-c.h (not installed without libsnappy-dev). */
int snappy_compress(const char *input, size_t input_length, char *compressed, size_t *compressed_length);
size_t snappy_max_compressed_length(size_t source_length);

int main(int argc, char **argv) {
	FILE *pack = NULL;
	int first = 1;
	if (argc > 2 && strcmp(argv[1], "-pack") == 0) {
		pack = fopen(argv[2], "wb");
		if (!pack) { perror(argv[2]); return 1; }
		first = 3;
	}
	static char in[1 << 20];
	for (int i = first; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) { perror(argv[i]); return 1; }
		size_t n = fread(in, 1, sizeof in, f);
		fclose(f);
		size_t cap = snappy_max_compressed_length(n);
		char *out = malloc(cap);
		size_t m = cap;
		if (snappy_compress(in, n, out, &m) != 0) { fprintf(stderr, "%s: compression failed\n", argv[i]); return 1; }
		if (pack) {
			unsigned char len[4] = {m >> 24, m >> 16, m >> 8, m};
			if (fwrite(len, 1, 4, pack) != 4 || fwrite(out, 1, m, pack) != m) { perror("pack"); return 1; }
		} else {
			char name[4096];
			snprintf(name, sizeof name, "%s.snappy", argv[i]);
			FILE *g = fopen(name, "wb");
			if (!g || fwrite(out, 1, m, g) != m || fclose(g)) { perror(name); return 1; }
		}
		printf("%s %zu -> %zu\n", argv[i], n, m);
		free(out);
	}
	if (pack && fclose(pack)) { perror("pack"); return 1; }
	return 0;
}
