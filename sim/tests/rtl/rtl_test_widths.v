// Combinational self-test of the port width classes the generated shim handles: CData (1-8
// bits), SData (9-16), IData (17-32), QData (33-64) and VlWide (65+, including a partial top
// word and 512 bits), plus a non-zero LSB and an ascending range. Each output is the bitwise
// NOT of its input, so a masking bug shows up as stray high bits.
module rtl_test_widths (
    input  wire [0:0]   a1,
    input  wire [6:0]   a7,
    input  wire [7:0]   a8,
    input  wire [8:0]   a9,
    input  wire [15:0]  a16,
    input  wire [16:0]  a17,
    input  wire [31:0]  a32,
    input  wire [32:0]  a33,
    input  wire [63:0]  a64,
    input  wire [64:0]  a65,
    input  wire [99:0]  a100,
    input  wire [511:0] a512,
    input  wire [8:1]   a_lsb1,
    /* verilator lint_off LITENDIAN */
    input  wire [0:3]   a_asc,
    output wire [0:0]   y1,
    output wire [6:0]   y7,
    output wire [7:0]   y8,
    output wire [8:0]   y9,
    output wire [15:0]  y16,
    output wire [16:0]  y17,
    output wire [31:0]  y32,
    output wire [32:0]  y33,
    output wire [63:0]  y64,
    output wire [64:0]  y65,
    output wire [99:0]  y100,
    output wire [511:0] y512,
    output wire [8:1]   y_lsb1,
    output wire [0:3]   y_asc
    /* verilator lint_on LITENDIAN */
);
    assign y1 = ~a1;
    assign y7 = ~a7;
    assign y8 = ~a8;
    assign y9 = ~a9;
    assign y16 = ~a16;
    assign y17 = ~a17;
    assign y32 = ~a32;
    assign y33 = ~a33;
    assign y64 = ~a64;
    assign y65 = ~a65;
    assign y100 = ~a100;
    assign y512 = ~a512;
    assign y_lsb1 = ~a_lsb1;
    assign y_asc = ~a_asc;
endmodule
