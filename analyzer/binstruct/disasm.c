/* disasm.c — machine code to the instruction classes the control-flow graph
 * needs (enum bs_insn_kind), through Capstone; x86-64 only. */
#include "binstruct.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#ifdef SCALANA_HAVE_CAPSTONE
#include <capstone/capstone.h>

struct bs_disasm {
    csh h;
    cs_insn *insn;
};

struct bs_disasm *bs_disasm_new(unsigned e_machine)
{
    if (e_machine != EM_X86_64) return NULL;
    struct bs_disasm *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK) {
        free(d);
        return NULL;
    }
    cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
    d->insn = cs_malloc(d->h);
    if (!d->insn) {
        cs_close(&d->h);
        free(d);
        return NULL;
    }
    return d;
}

void bs_disasm_free(struct bs_disasm *d)
{
    if (!d) return;
    cs_free(d->insn, 1);
    cs_close(&d->h);
    free(d);
}

/* A plain move between a register and the stack frame (rsp/rbp based), or a nop. */
static int stack_move(const cs_insn *ci)
{
    if (ci->id == X86_INS_NOP) return 1;
    const char *m = ci->mnemonic;
    if (strncmp(m, "mov", 3) != 0 && strncmp(m, "vmov", 4) != 0) return 0;
    /* (string moves address through rsi/rdi, so they never match below) */
    const cs_x86 *x = &ci->detail->x86;
    for (uint8_t k = 0; k < x->op_count; k++)
        if (x->operands[k].type == X86_OP_MEM &&
            (x->operands[k].mem.base == X86_REG_RSP || x->operands[k].mem.base == X86_REG_RBP) &&
            x->operands[k].mem.index == X86_REG_INVALID)
            return 1;
    return 0;
}

static void classify(struct bs_disasm *d, const cs_insn *ci, struct bs_insn *o)
{
    const cs_x86 *x = &ci->detail->x86;
    const cs_x86_op *op0 = x->op_count > 0 ? &x->operands[0] : NULL;
    o->kind = BS_I_OTHER;
    int got = op0 && op0->type == X86_OP_MEM && op0->mem.base == X86_REG_RIP &&
              op0->mem.index == X86_REG_INVALID;
    if (cs_insn_group(d->h, ci, CS_GRP_RET) || cs_insn_group(d->h, ci, CS_GRP_IRET)) {
        o->kind = BS_I_RET;
    } else if (cs_insn_group(d->h, ci, CS_GRP_CALL)) {
        if (op0 && op0->type == X86_OP_IMM) o->kind = BS_I_CALL, o->target = (uint64_t)op0->imm;
        else o->kind = BS_I_CALL_IND;
        if (got) o->flags |= BS_F_GOT_SLOT, o->target = ci->address + ci->size + (uint64_t)op0->mem.disp;
    } else if (cs_insn_group(d->h, ci, CS_GRP_JUMP)) {
        int uncond = ci->id == X86_INS_JMP || ci->id == X86_INS_LJMP;
        if (op0 && op0->type == X86_OP_IMM) {
            o->kind = uncond ? BS_I_JMP : BS_I_JCC;
            o->target = (uint64_t)op0->imm;
        } else {
            o->kind = BS_I_JMP_IND;
            if (got) o->flags |= BS_F_GOT_SLOT, o->target = ci->address + ci->size + (uint64_t)op0->mem.disp;
            if (op0 && op0->type == X86_OP_MEM && op0->mem.base == X86_REG_INVALID &&
                op0->mem.index != X86_REG_INVALID && op0->mem.scale == 8 && op0->mem.disp > 0)
                o->flags |= BS_F_ABS_TABLE, o->target = (uint64_t)op0->mem.disp;
        }
    } else if (stack_move(ci)) {
        o->flags |= BS_F_NO_LINE | (ci->id == X86_INS_NOP ? BS_F_NOP : 0);
    } else if (ci->id == X86_INS_UD2 || ci->id == X86_INS_HLT) {
        o->kind = BS_I_HALT;
    } else if (ci->id == X86_INS_LEA && x->op_count == 2 && x->operands[1].type == X86_OP_MEM &&
               x->operands[1].mem.base == X86_REG_RIP && x->operands[1].mem.index == X86_REG_INVALID) {
        o->flags |= BS_F_LEA_RIP;
        o->target = ci->address + ci->size + (uint64_t)x->operands[1].mem.disp;
    } else if (((ci->id == X86_INS_ADD || ci->id == X86_INS_SUB) && x->op_count == 2 &&
                x->operands[0].type == X86_OP_REG && x->operands[1].type == X86_OP_IMM) ||
               ((ci->id == X86_INS_INC || ci->id == X86_INS_DEC) && x->op_count == 1 &&
                x->operands[0].type == X86_OP_REG)) {
        o->flags |= BS_F_STEP;
    } else if (ci->id == X86_INS_CMP && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
               x->operands[1].type == X86_OP_IMM && x->operands[1].imm >= 0) {
        o->flags |= BS_F_CMP_IMM;
        o->target = (uint64_t)x->operands[1].imm;
    }
}

int bs_disasm_range(struct bs_disasm *d, const unsigned char *code, size_t n, uint64_t addr,
                    struct bs_insn **v, size_t *nv, size_t *cap)
{
    const uint8_t *p = code;
    size_t left = n;
    uint64_t a = addr;
    while (left > 0) {
        if (*nv == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            struct bs_insn *nvp = realloc(*v, nc * sizeof *nvp);
            if (!nvp) return -1;
            *v = nvp, *cap = nc;
        }
        const uint8_t *before = p;
        if (!cs_disasm_iter(d->h, &p, &left, &a, d->insn)) {
            /* data or padding in the code: step over one byte */
            p = before + 1, left--, a++;
            continue;
        }
        struct bs_insn *o = &(*v)[*nv];
        memset(o, 0, sizeof *o);
        o->addr = d->insn->address;
        o->size = (uint8_t)d->insn->size;
        classify(d, d->insn, o);
        (*nv)++;
    }
    return 0;
}

#else /* no Capstone: recovery is not available in this build */

struct bs_disasm *bs_disasm_new(unsigned e_machine)
{
    (void)e_machine;
    return NULL;
}
void bs_disasm_free(struct bs_disasm *d) { (void)d; }
int bs_disasm_range(struct bs_disasm *d, const unsigned char *code, size_t n, uint64_t addr,
                    struct bs_insn **v, size_t *nv, size_t *cap)
{
    (void)d, (void)code, (void)n, (void)addr, (void)v, (void)nv, (void)cap;
    return -1;
}
#endif

int bs_available(void)
{
#ifdef SCALANA_HAVE_CAPSTONE
    return 1;
#else
    return 0;
#endif
}
