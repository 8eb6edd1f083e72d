//! Gomoku threat lookups: `cargo xtask bench gomoku` (criterion). Numbers in docs/BENCHMARKS.md.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kernels::rng::SplitMix64;
use std::hint::black_box;
use std::time::Duration;
use warpsearch::gomoku::engine;
use warpsearch::gomoku::reference::{self, ArrayBoard};
use warpsearch::gomoku::table::Table;
use warpsearch::gomoku::{Board, Color, Rule, SIZE};

/// Mid-game boards: 40 stones each, from random play concentrated around the centre.
fn mid_game_boards(count: usize) -> Vec<(Board, ArrayBoard)> {
    let mut rng = SplitMix64::new(7, 7);
    (0..count)
        .map(|_| {
            let mut board = Board::new(Rule::Freestyle);
            let mut array = [[None; SIZE]; SIZE];
            let mut color = Color::Black;
            let mut stones = 0;
            while stones < 40 {
                let (x, y) = (3 + rng.below(9) as usize, 3 + rng.below(9) as usize);
                if board.make(x, y, color).is_ok() {
                    array[y][x] = Some(color);
                    color = color.other();
                    stones += 1;
                }
            }
            (board, array)
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let table = Table::get(Rule::Freestyle);
    eprintln!(
        "table (freestyle): built in {:.2} s on {} threads, {} distinct patterns, {:.1} MB",
        table.build_seconds,
        rayon::current_num_threads(),
        table.distinct_patterns(),
        table.bytes() as f64 / 1e6
    );
    let boards = mid_game_boards(16);

    c.bench_function("make+unmake", |b| {
        let mut board = boards[0].0.clone();
        b.iter(|| {
            board.make(black_box(0), black_box(14), Color::Black).ok();
            board.unmake(black_box(0), black_box(14), Color::Black).ok();
        })
    });

    c.bench_function("threats both colors (one board: entries in L1)", |b| {
        b.iter(|| black_box(boards[3].0.both_threats()))
    });

    c.bench_function("threats both colors (16 boards: entries in L2)", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % boards.len();
            black_box(boards[i].0.both_threats())
        })
    });

    // Cold: 64 MB of unrelated data is read before every call, evicting the table's entries.
    let mut evict = vec![1u64; 8 << 20];
    c.bench_function("threats both colors (cold table)", |b| {
        let mut i = 0;
        b.iter_batched(
            || {
                i = (i + 1) % boards.len();
                evict
                    .iter_mut()
                    .step_by(8)
                    .for_each(|w| *w = w.wrapping_add(1));
                i
            },
            |i| black_box(boards[i].0.both_threats()),
            BatchSize::PerIteration,
        )
    });

    // The engine's window tables (any board size): the same boards on 15×15 and 20×20.
    let engine_boards = |size: usize| -> Vec<engine::Board> {
        let mut rng = SplitMix64::new(7, 7);
        (0..16)
            .map(|_| {
                let mut board = engine::Board::new(size, size, engine::GameRule::Freestyle)
                    .expect("a supported size");
                while board.stones() < 40 {
                    let (x, y) = (
                        size / 2 - 4 + rng.below(9) as usize,
                        size / 2 - 4 + rng.below(9) as usize,
                    );
                    let cell = board.cell(x, y);
                    if board.at(cell) == engine::EMPTY {
                        let color = board.side_to_move();
                        board.place(cell, color);
                    }
                }
                board
            })
            .collect()
    };
    for size in [15, 20] {
        let boards = engine_boards(size);
        c.bench_function(&format!("engine {size}x{size}: place+undo"), |b| {
            let mut board = boards[0].clone();
            let cell = board.cell(0, size - 1);
            b.iter(|| {
                board.place(black_box(cell), engine::BLACK);
                board.undo();
            })
        });
        c.bench_function(
            &format!("engine {size}x{size}: window lookups, every empty cell, 4 lines, both colors (16 boards)"),
            |b| {
                let table = engine::pattern::Tables::get(engine::GameRule::Freestyle);
                let mut i = 0;
                b.iter(|| {
                    i = (i + 1) % boards.len();
                    let board = &boards[i];
                    let mut fours = 0u32;
                    for &cell in board.board_cells() {
                        if board.at(cell) != engine::EMPTY {
                            continue;
                        }
                        for d in 0..4 {
                            let key = board.key(cell, d);
                            for pattern in table.patterns(key) {
                                fours += u32::from(pattern.is_four());
                            }
                        }
                    }
                    black_box(fours)
                })
            },
        );
    }

    c.bench_function("brute force, both colors", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % boards.len();
            let board = &boards[i].1;
            black_box((
                reference::threats(board, Color::Black, Rule::Freestyle),
                reference::threats(board, Color::White, Rule::Freestyle),
            ))
        })
    });
}

criterion_group! {
    name = gomoku;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(gomoku);
