/*
 * AT&T disassembly for reports. NOT async-signal-safe by contract (it is only
 * called when the profile is written), although Zydis itself does not allocate.
 */
#include "isa/isa.h"

#include <string.h>

#include <Zydis/Zydis.h>

size_t wasp_isa_format_att(const uint8_t *bytes, size_t n, uint64_t pc, char *buf, size_t buflen)
{
    ZydisDecoder dec;
    ZydisFormatter fmt;
    ZydisDecodedInstruction insn;
    ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

    if (buflen == 0)
        return 0;
    buf[0] = '\0';
    if (n > WASP_MAX_INSN)
        n = WASP_MAX_INSN;
    if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
        !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, n, &insn, ops)) ||
        !ZYAN_SUCCESS(ZydisFormatterInit(&fmt, ZYDIS_FORMATTER_STYLE_ATT)))
        return 0;
    /* objdump-like numbers: 0x10 rather than 0x0000000000000010 or 0x0C. */
    ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, 0);
    ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_ADDR_PADDING_RELATIVE, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(&fmt, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
    /* A real runtime address makes RIP-relative operands and branch targets
     * print as absolute addresses. */
    if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&fmt, &insn, ops, insn.operand_count_visible, buf,
                                                      buflen, pc, NULL))) {
        buf[0] = '\0';
        return 0;
    }
    return strlen(buf);
}
