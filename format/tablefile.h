/*
 * tablefile.h - the on-disk encoding of solved sectors (format/FORMAT.md is
 * normative; the constants here must match it): the sector file header,
 * block tables, value planes, zstd blocks, footer, XXH64, and the MANIFEST
 * text.  Pure encode/decode on memory buffers: no file I/O, no threads.
 * Every decoder validates all it reads and returns MMTB_ERR_CORRUPT (or
 * MMTB_ERR_UNSUPPORTED / MMTB_ERR_MISMATCH) on bad bytes, never asserts.
 */
#ifndef MMTB_TABLEFILE_H
#define MMTB_TABLEFILE_H

#include "mmtb_common.h"

#include <zstd.h>

/* ---- Constants (FORMAT.md, "Sector file") ---- */

#define MMTB_TF_VERSION 2
#define MMTB_TF_HEADER_SIZE 160
#define MMTB_TF_FOOTER_SIZE 32
#define MMTB_TF_VALUE_ENCODING 1  /* 2-bit W/D/L plane + DTW of decided slots */
#define MMTB_TF_VALUE_LOSSES 2    /* packed: 2-bit W/D/L plane + DTW of the losses only */
#define MMTB_TF_MAX_DESCRIPTOR 65536
#define MMTB_TF_MAX_SLOTS ((uint64_t)1 << 40)
#define MMTB_TF_MIN_BLOCK_LOG2 10
#define MMTB_TF_MAX_BLOCK_LOG2 22
#define MMTB_TF_WDL_BLOCK_LOG2 18 /* writer default: 262,144 slots = 64 KiB */
#define MMTB_TF_DTW_BLOCK_LOG2 14 /* writer default: 16,384 slots */
#define MMTB_TF_WDL_LEVEL 15      /* writer default zstd levels per plane */
#define MMTB_TF_DTW_LEVEL 6
#define MMTB_TF_TABLE_ENTRY 16    /* bytes per block table entry */
#define MMTB_TF_MIN_COUNT_LOG2 8  /* the count table's blocks: 2^8 .. 2^22 scheme 1 slots */
#define MMTB_TF_MAX_COUNT_LOG2 22
#define MMTB_TF_SUFFIX ".mmtb"
#define MMTB_MANIFEST_NAME "MANIFEST"
#define MMTB_MANIFEST_VERSION 2

/* Planes of a sector file. */
enum mmtb_tf_plane { MMTB_TF_WDL = 0, MMTB_TF_DTW = 1 };

/* Stored W/D/L codes (2 bits per slot). */
enum { MMTB_TF_LOSS = 0, MMTB_TF_DRAW = 1, MMTB_TF_WIN = 2, MMTB_TF_UNUSED = 3 };

/* The fixed header, decoded. */
struct mmtb_tf_header {
    uint16_t version;
    uint64_t fingerprint;
    char name[32];            /* variant name, NUL-terminated (at most 31 characters) */
    uint32_t descriptor_len;
    struct mmtb_sector sector;
    uint16_t index_scheme;
    uint8_t value_encoding;
    uint8_t dtw_width;        /* 0, 1 or 2 */
    uint8_t wdl_block_log2, dtw_block_log2; /* dtw_block_log2 <= wdl_block_log2 */
    uint8_t count_block_log2; /* the count table's blocks: 2^this scheme 1 slots; 0: no table */
    uint32_t count_blocks;    /* entries of the count table (0 exactly without one) */
    uint64_t slots, canonical, wins, draws, losses;
    int32_t max_win, max_loss;
    uint64_t wdl_data_bytes, dtw_data_bytes;
    uint64_t meta_hash;       /* XXH64 of bytes [MMTB_TF_HEADER_SIZE, meta_end) */
    uint64_t header_hash;     /* XXH64 of bytes [0, 152); set by encode and decode */
};

/* Where everything is, derived from a valid header. */
struct mmtb_tf_layout {
    uint64_t nblocks[2];      /* per plane */
    uint64_t block_slots[2];  /* slots per full block, per plane */
    uint64_t descriptor_off;  /* = MMTB_TF_HEADER_SIZE */
    uint64_t count_off;       /* the count table (count_blocks 4-byte entries, zero-padded
                               * to a multiple of 8), right after the descriptor */
    uint64_t table_off[2];    /* block tables */
    uint64_t meta_end;        /* end of the block tables = start of the data */
    uint64_t data_off[2];     /* first byte of each plane's blocks */
    uint64_t footer_off;
    uint64_t file_size;       /* footer_off + MMTB_TF_FOOTER_SIZE */
};

/* One block, from a block table: offset computed from the sizes before it. */
struct mmtb_tf_block {
    uint64_t offset;
    uint32_t csize;    /* stored bytes; == raw_size: stored raw, < raw_size: a zstd frame */
    uint32_t raw_size; /* bytes after decompression (DTW: width x decided slots, may be 0) */
    uint32_t hash;     /* low 32 bits of the XXH64 of the stored bytes */
};

struct mmtb_tf_footer {
    uint64_t file_size;
    uint64_t file_hash;   /* XXH64 of bytes [0, file_size - MMTB_TF_FOOTER_SIZE) */
    uint64_t header_hash; /* copy of the header's */
};

/* ---- XXH64 (seed 0 everywhere in the format) ---- */

/* One-shot XXH64 of len bytes. */
uint64_t mmtb_xxh64(const void *buf, size_t len, uint64_t seed);

/* Streaming XXH64: init, update any number of times, digest (the state is
 * not consumed; plain data, no allocation). */
struct mmtb_xxh64_state {
    uint64_t total, seed, v[4];
    uint8_t buf[32];
    unsigned nbuf;
};
void mmtb_xxh64_init(struct mmtb_xxh64_state *st, uint64_t seed);
void mmtb_xxh64_update(struct mmtb_xxh64_state *st, const void *buf, size_t len);
uint64_t mmtb_xxh64_digest(const struct mmtb_xxh64_state *st);

/* ---- Header, layout, tables, footer ---- */

/* Serialise a header (computes header_hash, stores it into h and out). */
void mmtb_tf_header_encode(struct mmtb_tf_header *h, uint8_t out[MMTB_TF_HEADER_SIZE]);

/*
 * Parse and validate a fixed header from len bytes: magic, version
 * (MMTB_ERR_UNSUPPORTED when not MMTB_TF_VERSION), header hash, reserved
 * fields zero, every field within its range and consistent with the others
 * (counts, depths, DTW width, sizes).  Returns MMTB_OK or MMTB_ERR_CORRUPT
 * (MMTB_ERR_UNSUPPORTED for a newer version or value encoding).
 */
int mmtb_tf_header_decode(const uint8_t *buf, size_t len, struct mmtb_tf_header *h);

/* Layout of a header that mmtb_tf_header_decode accepted (or that a writer
 * filled in consistently).  Returns MMTB_OK or MMTB_ERR_CORRUPT. */
int mmtb_tf_layout(const struct mmtb_tf_header *h, struct mmtb_tf_layout *l);

/* Size of the metadata region after the fixed header (descriptor, padding,
 * count table, both block tables): bytes [MMTB_TF_HEADER_SIZE, meta_end). */
uint64_t mmtb_tf_meta_size(const struct mmtb_tf_layout *l);

/*
 * Serialise the metadata region: descriptor text, zero padding, the count
 * table (h->count_blocks entries of counts; NULL when there are none), the
 * block tables of both planes (csize, raw_size, hash; offsets are
 * ignored).  out has mmtb_tf_meta_size bytes.  Returns the XXH64 of the
 * region (for h->meta_hash).
 */
uint64_t mmtb_tf_meta_encode(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                             const char *descriptor, const uint32_t *counts,
                             const struct mmtb_tf_block *wdl, const struct mmtb_tf_block *dtw,
                             uint8_t *out);

/*
 * Parse the metadata region (meta_size bytes after the fixed header):
 * checks meta_hash, zero padding, descriptor text without NUL bytes, the
 * count table (each entry at most 255 * 2^count_block_log2; copied into
 * counts, h->count_blocks entries, when counts is not NULL), each
 * block's sizes (W/D/L raw size as derived; DTW raw size a multiple of the
 * width up to width x slots; stored size up to the raw size, 0 only for an
 * empty block), reserved fields, and that the stored sizes add up to the
 * header's data sizes.  Fills wdl[] and dtw[] (nblocks entries each; caller
 * allocates) with offsets, sizes and hashes; *descriptor points into buf.  Returns MMTB_OK or MMTB_ERR_CORRUPT.
 */
int mmtb_tf_meta_decode(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                        const uint8_t *buf, size_t len, const char **descriptor,
                        uint32_t *counts, struct mmtb_tf_block *wdl, struct mmtb_tf_block *dtw);

void mmtb_tf_footer_encode(const struct mmtb_tf_footer *f, uint8_t out[MMTB_TF_FOOTER_SIZE]);

/* Parse a footer and check it against its header: end magic, file size,
 * header hash copy (file_hash is only checked by whole-file readers).  Returns MMTB_OK or MMTB_ERR_CORRUPT. */
int mmtb_tf_footer_decode(const uint8_t *buf, size_t len, const struct mmtb_tf_header *h,
                          struct mmtb_tf_footer *f);

/* ---- Value planes and blocks ---- */

/* Slots in block b of a plane, and the largest raw (uncompressed) size of
 * the block in bytes: exact for the W/D/L plane, width x slots for the DTW
 * plane (whose blocks hold only the decided slots). */
uint64_t mmtb_tf_block_nslots(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                              int plane, uint64_t b);
size_t mmtb_tf_block_raw_max(const struct mmtb_tf_header *h, const struct mmtb_tf_layout *l,
                             int plane, uint64_t b);

/* DTW width a sector with these largest depths must use (FORMAT.md): 0 when
 * no win and no loss deeper than 0, 1 up to 255, else 2.  A packed sector
 * (value encoding 2) stores only losses: its width is
 * mmtb_tf_dtw_width(-1, max_loss). */
int mmtb_tf_dtw_width(int32_t max_win, int32_t max_loss);
/* The width header h must have: of both depths for value encoding 1, of
 * the losses' for 2. */
int mmtb_tf_header_dtw_width(const struct mmtb_tf_header *h);
/* Whether a slot of W/D/L code c has an entry in the DTW plane of a sector
 * of value encoding enc: a decided slot (1), a loss (2). */
static inline int mmtb_tf_has_depth(int enc, unsigned c)
{
    return enc == MMTB_TF_VALUE_LOSSES ? c == MMTB_TF_LOSS : c == MMTB_TF_LOSS || c == MMTB_TF_WIN;
}

/*
 * Pack n slot values into a raw W/D/L block: 4 slots per byte, slot j in
 * bits 2(j mod 4) of byte j/4, unused high bits of the last byte zero.
 * wdl[i] is 0..3; an unused slot (3) is stored as a draw.
 */
void mmtb_tf_pack_wdl(const uint8_t *restrict wdl, size_t n, uint8_t *restrict raw);

/* The inverse: the codes of slots [j, j + n) of a raw W/D/L block, one
 * byte each (0..3), into out. */
void mmtb_tf_unpack_wdl(const uint8_t *restrict raw, uint64_t j, uint64_t n,
                        uint8_t *restrict out);

/* Pack the DTW values of the slots among n that have an entry in value
 * encoding enc (mmtb_tf_has_depth: the decided slots, or the losses), in
 * slot order, width 1 or 2 bytes little-endian; the others are skipped.
 * Returns the bytes written (width x entries). */
size_t mmtb_tf_pack_dtw(int enc, const uint8_t *wdl, const uint16_t *dtw, size_t n, int width,
                        uint8_t *raw);

/* Number of decided slots (code loss or win) among slots [from, to) of a
 * raw W/D/L block: where a slot's depth sits in its DTW block. */
uint64_t mmtb_tf_count_decided(const uint8_t *raw, uint64_t from, uint64_t to);
/* Number of won slots (code win) among slots [from, to) of a raw W/D/L
 * block. */
uint64_t mmtb_tf_count_wins(const uint8_t *raw, uint64_t from, uint64_t to);
/* Number of lost slots (code loss) among slots [from, to). */
uint64_t mmtb_tf_count_losses(const uint8_t *raw, uint64_t from, uint64_t to);
/* Number of slots among [from, to) that have a DTW entry in value encoding
 * enc: decided slots (1) or losses (2). */
uint64_t mmtb_tf_count_depths(int enc, const uint8_t *raw, uint64_t from, uint64_t to);

/* Validate a raw W/D/L block of n slots (no code 3, padding bits zero) /
 * a raw DTW block (no value above max_dtw).  MMTB_OK or MMTB_ERR_CORRUPT. */
int mmtb_tf_check_wdl(const uint8_t *raw, size_t n);
int mmtb_tf_check_dtw(const uint8_t *raw, size_t n, int width, uint32_t max_dtw);

/* One value from a raw block. */
static inline unsigned mmtb_tf_wdl_get(const uint8_t *raw, uint64_t j)
{
    return (raw[j >> 2] >> (2 * (j & 3))) & 3u;
}
static inline unsigned mmtb_tf_dtw_get(const uint8_t *raw, uint64_t j, int width)
{
    return width == 1 ? raw[j] : (unsigned)raw[2 * j] | (unsigned)raw[2 * j + 1] << 8;
}

/* Worst-case stored size of a raw block of n bytes (for buffers). */
size_t mmtb_tf_block_bound(size_t n);

/*
 * Compress a raw block of n bytes (n may be 0: an empty DTW block, stored
 * as nothing) with zstd at `level` into dst (cap >= mmtb_tf_block_bound(n));
 * when the frame would not be smaller than the block, store it raw.
 * Writes the stored size and its 32-bit hash.  Returns MMTB_OK, or
 * MMTB_ERR_NOMEM / MMTB_ERR_INVALID if zstd fails.
 */
int mmtb_tf_block_compress(ZSTD_CCtx *cctx, int level, const uint8_t *raw, size_t n,
                           uint8_t *dst, size_t cap, uint32_t *csize, uint32_t *hash);

/*
 * Check a stored block against its table entry (sizes, hash) and expand it
 * to exactly b->raw_size bytes into raw (room for them).  Returns MMTB_OK
 * or MMTB_ERR_CORRUPT.
 */
int mmtb_tf_block_decompress(ZSTD_DCtx *dctx, const uint8_t *src, const struct mmtb_tf_block *b,
                             uint8_t *raw);

/* ---- File names ---- */

/* The file name of a sector: "W-B.mmtb" for a movement sector (no stones in
 * hand), "W-B-WH-BH.mmtb" otherwise.  snprintf semantics. */
int mmtb_tf_sector_filename(struct mmtb_sector s, char *buf, size_t len);

/* "W-B" or "W-B-WH-BH", and its parser (MMTB_OK or MMTB_ERR_PARSE). */
int mmtb_tf_sector_name(struct mmtb_sector s, char *buf, size_t len);
int mmtb_tf_sector_name_parse(const char *text, size_t len, struct mmtb_sector *s);

/* ---- MANIFEST (FORMAT.md, "Manifest") ---- */

struct mmtb_manifest_file {
    struct mmtb_sector sector;
    uint64_t size;      /* file size */
    uint64_t file_hash; /* the footer's file_hash */
};

struct mmtb_manifest {
    char name[32];          /* variant name */
    uint64_t fingerprint;
    char *descriptor;       /* canonical descriptor text (malloc'd, NUL-terminated) */
    size_t descriptor_len;
    int index_scheme;
    int nsectors;
    struct mmtb_sector *sectors; /* the game, malloc'd */
    int nfiles;
    struct mmtb_manifest_file *files; /* finished sectors, malloc'd */
};

/* Serialise a manifest into a malloc'd text (*out, *len).  Returns MMTB_OK,
 * MMTB_ERR_NOMEM, or MMTB_ERR_INVALID for a name or descriptor the text
 * form cannot carry. */
int mmtb_manifest_format(const struct mmtb_manifest *m, char **out, size_t *len);

/* Parse and validate a manifest; on success m owns malloc'd arrays (free
 * with mmtb_manifest_clear).  Returns MMTB_OK, MMTB_ERR_CORRUPT (message in
 * err naming the line), MMTB_ERR_UNSUPPORTED (newer version), or
 * MMTB_ERR_NOMEM. */
int mmtb_manifest_parse(const char *text, size_t len, struct mmtb_manifest *m, char *err,
                        size_t errlen);

/* Free a manifest's arrays and zero it. */
void mmtb_manifest_clear(struct mmtb_manifest *m);

/* Index of sector s in m->sectors / m->files, or -1. */
int mmtb_manifest_find_sector(const struct mmtb_manifest *m, struct mmtb_sector s);
int mmtb_manifest_find_file(const struct mmtb_manifest *m, struct mmtb_sector s);

#endif
