//! Every public library entry point over its whole input domain: an error, never a panic or a
//! hang. Each property draws from the full range of its argument types (plus the edges), and
//! the cases the reliability review found are pinned as plain tests.

use proptest::prelude::*;
use warpsearch::gomoku::line::{Cell, threats, threats_by_definition};
use warpsearch::gomoku::table::{CODES, Table, pattern_of};
use warpsearch::gomoku::{Board, Color, GomokuError, Rule};
use warpsearch::no3line::{self, Part};
use warpsearch::nqueens::{self, FindOptions, Method};
use warpsearch::{Backend, BackendChoice, Error, backend};

fn cpu() -> Backend {
    Backend::Cpu(backend::cpu_pool(Some(1)).expect("one thread"))
}

fn cell() -> impl Strategy<Value = Cell> {
    prop_oneof![
        Just(Cell::Empty),
        Just(Cell::Stone(Color::Black)),
        Just(Cell::Stone(Color::White))
    ]
}

fn rule() -> impl Strategy<Value = Rule> {
    prop_oneof![Just(Rule::Freestyle), Just(Rule::Standard)]
}

#[test]
fn no3line_parts_out_of_range_are_errors() {
    let six = || no3line::enumerate_part(6, &cpu(), &Default::default(), Part::WHOLE, |_| {});
    assert!(six().is_ok());
    for (index, of) in [(1, 0), (0, 1), (0, 0), (5, 2), (u32::MAX, 1)] {
        let part = Part { index, of };
        let result = no3line::enumerate_part(6, &cpu(), &Default::default(), part, |_| {});
        assert!(
            matches!(result, Err(Error::InvalidArgument(_))),
            "{index}/{of}"
        );
        assert!(Part::new(index, of).is_err());
    }
}

#[test]
fn no3line_pictures_of_too_many_rows_are_errors() {
    let rows = vec![0b11u32; 40];
    assert!(no3line::images(&rows).is_err());
    assert!(no3line::classify(&rows).is_err());
    assert!(no3line::svg(&rows).is_err());
    // A point outside the n×n grid.
    assert!(no3line::images(&[0b100, 0b1]).is_err());
    assert!(no3line::images(&[0b11, 0b11]).is_ok());
}

#[test]
fn gomoku_lines_longer_than_the_board_are_errors() {
    let line = vec![Cell::Empty; 20];
    for rule in [Rule::Freestyle, Rule::Standard] {
        assert!(matches!(
            threats(&line, Color::Black, rule),
            Err(GomokuError::LineTooLong(20))
        ));
        assert!(threats_by_definition(&line, Color::White, rule).is_err());
        assert!(pattern_of(&line, rule, threats).is_err());
    }
}

#[test]
fn gomoku_table_lookups_past_the_codes_are_the_empty_pattern() {
    let table = Table::get(Rule::Standard);
    for code in [CODES as u32, u32::MAX] {
        assert!(table.lookup(code).is_empty());
        assert_eq!(table.index_of(code), 0);
    }
    assert!(table.pattern(u32::MAX).is_empty());
}

#[test]
fn gomoku_cells_off_the_board_are_named_as_given() {
    let mut board = Board::new(Rule::Standard);
    let message = board
        .make(usize::MAX, 3, Color::Black)
        .unwrap_err()
        .to_string();
    assert!(message.contains(&usize::MAX.to_string()), "{message}");
    assert!(!message.contains("-1"), "{message}");
}

#[test]
fn random_dfs_rejects_limits_that_cannot_succeed_and_search_numbers_that_overflow() {
    let backend = cpu();
    for limit in [0, 7] {
        let result = nqueens::random_dfs_batch(8, &backend, 1, 0, 4, limit);
        assert!(matches!(result, Err(Error::InvalidArgument(_))), "{limit}");
        let options = FindOptions {
            method: Method::RandomDfs,
            limit,
            backend: BackendChoice::Cpu,
            ..FindOptions::default()
        };
        assert!(matches!(
            nqueens::find_one(8, &options),
            Err(Error::InvalidArgument(_))
        ));
    }
    let result = nqueens::random_dfs_batch(8, &backend, 1, u64::MAX, 2, 100);
    assert!(matches!(result, Err(Error::InvalidArgument(_))));
    assert!(nqueens::random_dfs_batch(8, &backend, 1, u64::MAX - 2, 2, 100).is_ok());
}

#[test]
fn cpu_only_methods_refuse_the_gpu_backend() {
    for method in [Method::Construct, Method::MinConflicts] {
        let options = FindOptions {
            method,
            backend: BackendChoice::Gpu,
            ..FindOptions::default()
        };
        assert!(matches!(
            nqueens::find_one(8, &options),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn selftest_warps_out_of_range_are_errors() {
    for warps in [0, warpsearch::selftest::MAX_WARPS + 1, u32::MAX] {
        assert!(
            warpsearch::selftest::run(&cpu(), warps, 1).is_err(),
            "{warps}"
        );
    }
}

#[test]
fn thread_pools_far_above_the_cores_are_errors() {
    for threads in [0, backend::max_threads() + 1, usize::MAX] {
        assert!(backend::cpu_pool(Some(threads)).is_err(), "{threads}");
    }
    assert!(backend::cpu_pool(Some(backend::max_threads())).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn nqueens_size_checks_never_panic(n in any::<u32>()) {
        let _ = nqueens::validate(n);
        let _ = nqueens::known(n);
        for method in [Method::Construct, Method::MinConflicts, Method::RandomDfs] {
            let _ = nqueens::check_n(n, method);
        }
        // Sizes 10..=14 are accepted but slow for a property test: 9 stands in for them.
        let _ = nqueens::count_by_brute_force(if (10..=14).contains(&n) { 9 } else { n });
        let _ = warpsearch::no3line::validate(n);
    }

    #[test]
    fn find_one_never_panics(
        n in 0u32..40,
        method in prop_oneof![Just(Method::Construct), Just(Method::MinConflicts), Just(Method::RandomDfs)],
        seed in any::<u64>(),
        limit_choice in 0u8..4,
        gpu in any::<bool>(),
    ) {
        // Below N (an error), N − 1, the default, and the largest: a limit just above N is
        // valid but may take many batches, which is not what this property is about.
        let limit = [0, n.saturating_sub(1), nqueens::find::DEFAULT_LIMIT, u32::MAX][usize::from(limit_choice)];
        let options = FindOptions {
            method,
            seed,
            limit,
            backend: if gpu { BackendChoice::Gpu } else { BackendChoice::Cpu },
            threads: Some(1),
            ..FindOptions::default()
        };
        if let Ok(columns) = nqueens::find_one(n, &options) {
            prop_assert!(nqueens::verify(&columns).is_ok());
        }
    }

    #[test]
    fn random_dfs_batches_never_panic(
        first in any::<u64>(),
        searches in 0u32..8,
        limit in any::<u32>(),
        n in 0u32..200,
    ) {
        let _ = nqueens::random_dfs_batch(n, &cpu(), 7, first, searches, limit.min(5000));
    }

    #[test]
    fn verify_never_panics(columns in proptest::collection::vec(any::<u32>(), 0..64)) {
        let _ = nqueens::verify(&columns);
    }

    #[test]
    fn no3line_functions_never_panic(rows in proptest::collection::vec(any::<u32>(), 0..48)) {
        let _ = no3line::images(&rows);
        let _ = no3line::classify(&rows);
        let _ = no3line::svg(&rows);
        let _ = no3line::format_line(&rows);
    }

    #[test]
    fn no3line_parts_never_panic(text in "\\PC{0,24}", index in any::<u32>(), of in any::<u32>()) {
        let _ = Part::parse(&text);
        let _ = Part::parse(&format!("{index}/{of}"));
        prop_assert_eq!(Part::new(index, of).is_ok(), index >= 1 && index <= of);
    }

    #[test]
    fn gomoku_lines_never_panic(line in proptest::collection::vec(cell(), 0..40), rule in rule()) {
        for color in [Color::Black, Color::White] {
            let fast = threats(&line, color, rule);
            let slow = threats_by_definition(&line, color, rule);
            prop_assert_eq!(fast.is_ok(), line.len() <= 15);
            if let (Ok(fast), Ok(slow)) = (fast, slow) {
                prop_assert_eq!(fast, slow);
            }
        }
    }

    #[test]
    fn gomoku_board_moves_never_panic(
        moves in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<bool>(), any::<bool>()), 0..40),
        x_small in proptest::collection::vec(0usize..17, 0..40),
    ) {
        let mut board = Board::new(Rule::Freestyle);
        for ((x, y, black, take_back), small) in moves.into_iter().zip(x_small.into_iter().chain(std::iter::repeat(0))) {
            let (x, y) = if small % 2 == 0 { (small, x % 17) } else { (x, y) };
            let color = if black { Color::Black } else { Color::White };
            let _ = if take_back { board.unmake(x, y, color) } else { board.make(x, y, color) };
            let _ = board.get(x, y);
        }
        let _ = board.both_threats();
    }

    #[test]
    fn gomoku_parser_never_panics(text in "\\PC{0,400}") {
        let _ = warpsearch::gomoku::parse::parse(&text);
    }
}
