//! Reading a fuzz input as a stream of choices (a byte past the end reads
//! as 0, so every input is a complete choice sequence).

pub(crate) struct Choices<'a> {
    data: &'a [u8],
}

impl<'a> Choices<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Choices { data }
    }

    /// The next byte, or 0 at the end.
    pub(crate) fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::from(self.byte()) % n
    }

    /// Up to `max` bytes, as text (lossy).
    pub(crate) fn text(&mut self, max: usize) -> String {
        let len = self.below(max + 1).min(self.data.len());
        let (head, rest) = self.data.split_at(len);
        self.data = rest;
        String::from_utf8_lossy(head).into_owned()
    }

    /// `true` when the input is used up.
    pub(crate) fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}
