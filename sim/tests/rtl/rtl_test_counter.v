// Clocked self-test: a 48-bit counter with synchronous active-high reset, enable and load,
// written in the non-ANSI port style rust-hdl generates. `wraps` counts overflows.
module rtl_test_counter(clock, reset, enable, load, load_value, count, wraps);
    input wire clock;
    input wire reset;
    input wire enable;
    input wire load;
    input wire [47:0] load_value;
    output reg [47:0] count;
    output reg [15:0] wraps;

    always @(posedge clock) begin
        if (reset) begin
            count <= 48'd0;
            wraps <= 16'd0;
        end else if (load) begin
            count <= load_value;
        end else if (enable) begin
            count <= count + 48'd1;
            if (count == 48'hffff_ffff_ffff) wraps <= wraps + 16'd1;
        end
    end
endmodule
