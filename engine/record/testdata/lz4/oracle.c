/* oracle.c: compresses each input file named on the command line with the
 * system liblz4's LZ4_compress_default (the block compressor lz4-java's
 * fastCompressor calls, as Kafka's Lz4BlockOutputStream uses at the default
 * level) and writes the raw block to <file>.lz4block. Only for making the
 * golden blocks; not built by Go. Build:
 *   gcc -O2 -o /tmp/lz4oracle oracle.c /usr/lib/x86_64-linux-gnu/liblz4.so.1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity);
int LZ4_compressBound(int inputSize);
int LZ4_versionNumber(void);

int main(int argc, char **argv) {
	fprintf(stderr, "liblz4 version %d\n", LZ4_versionNumber());
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) { perror(argv[i]); return 1; }
		static char in[1 << 20];
		size_t n = fread(in, 1, sizeof in, f);
		fclose(f);
		int cap = LZ4_compressBound((int)n);
		char *out = malloc(cap > 0 ? cap : 1);
		int m = LZ4_compress_default(in, out, (int)n, cap);
		if (m <= 0) { fprintf(stderr, "%s: compression failed\n", argv[i]); return 1; }
		char name[4096];
		snprintf(name, sizeof name, "%s.lz4block", argv[i]);
		FILE *g = fopen(name, "wb");
		if (!g || fwrite(out, 1, m, g) != (size_t)m || fclose(g)) { perror(name); return 1; }
		printf("%s %zu -> %d\n", argv[i], n, m);
		free(out);
	}
	return 0;
}
