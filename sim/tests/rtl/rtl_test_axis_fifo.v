// Clocked self-test: a 4-deep AXI-stream FIFO, 512-bit data and 64-bit keep, with
// back-pressure on both sides, an active-low reset and a clock named `clk`. Registered
// outputs: s_axis_tready = not full, m_axis_tvalid = not empty; the head entry is on m_axis_*.
// `frames` counts accepted beats with tlast. Storage is one register per slot (Verilator
// 5.006 rejects non-blocking array writes in loops it will not unroll).
module rtl_test_axis_fifo (
    input  wire         clk,
    input  wire         rst_n,
    input  wire [511:0] s_axis_tdata,
    input  wire [63:0]  s_axis_tkeep,
    input  wire         s_axis_tvalid,
    input  wire         s_axis_tlast,
    output wire         s_axis_tready,
    output wire [511:0] m_axis_tdata,
    output wire [63:0]  m_axis_tkeep,
    output wire         m_axis_tvalid,
    output wire         m_axis_tlast,
    input  wire         m_axis_tready,
    output reg  [31:0]  frames
);
    reg [576:0] slot0, slot1, slot2, slot3;
    reg [1:0] wr_ptr, rd_ptr;
    reg [2:0] count;

    wire push = s_axis_tvalid && s_axis_tready;
    wire pop = m_axis_tvalid && m_axis_tready;
    wire [576:0] head = rd_ptr == 2'd0 ? slot0 : rd_ptr == 2'd1 ? slot1
                      : rd_ptr == 2'd2 ? slot2 : slot3;

    assign s_axis_tready = count != 3'd4;
    assign m_axis_tvalid = count != 3'd0;
    assign m_axis_tdata = head[511:0];
    assign m_axis_tkeep = head[575:512];
    assign m_axis_tlast = head[576];

    always @(posedge clk) begin
        if (!rst_n) begin
            wr_ptr <= 2'd0;
            rd_ptr <= 2'd0;
            count <= 3'd0;
            frames <= 32'd0;
        end else begin
            if (push) begin
                case (wr_ptr)
                    2'd0: slot0 <= {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
                    2'd1: slot1 <= {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
                    2'd2: slot2 <= {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
                    default: slot3 <= {s_axis_tlast, s_axis_tkeep, s_axis_tdata};
                endcase
                wr_ptr <= wr_ptr + 2'd1;
                if (s_axis_tlast) frames <= frames + 32'd1;
            end
            if (pop) rd_ptr <= rd_ptr + 2'd1;
            count <= count + {2'd0, push} - {2'd0, pop};
        end
    end
endmodule
